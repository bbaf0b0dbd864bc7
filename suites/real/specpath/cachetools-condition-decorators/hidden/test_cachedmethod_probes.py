# Probes for cachetools 5.5.2 -> 6.0.0, taken from the project's own tests (MIT, Thomas Kemmer):
# tests/test_cachedmethod.py of 6.0.0. Verbatim: the imports, the Cached, Locked and Conditioned
# classes, and every test method kept; adapted: CachedMethodTest keeps only the methods used as probes
# (the condition and `cache(self) is None` deprecation tests of 6.0.0, and tests that already passed on
# 5.5.2 as fixed obligations).
import unittest
import warnings

from cachetools import LRUCache, cachedmethod, keys


class Cached:
    def __init__(self, cache, count=0):
        self.cache = cache
        self.count = count

    @cachedmethod(lambda self: self.cache)
    def get(self, value):
        count = self.count
        self.count += 1
        return count

    @cachedmethod(lambda self: self.cache, key=keys.typedmethodkey)
    def get_typedmethod(self, value):
        count = self.count
        self.count += 1
        return count

class Locked:
    def __init__(self, cache):
        self.cache = cache
        self.count = 0
        self.lock_count = 0

    @cachedmethod(lambda self: self.cache, lock=lambda self: self)
    def get(self, value):
        count = self.count
        self.count += 1
        return count

    def __enter__(self):
        self.lock_count += 1

    def __exit__(self, *exc):
        pass

class Conditioned(Locked):
    def __init__(self, cache):
        Locked.__init__(self, cache)
        self.wait_count = 0
        self.notify_count = 0

    @cachedmethod(lambda self: self.cache, condition=lambda self: self)
    def get(self, value):
        return Locked.get.__wrapped__(self, value)

    @cachedmethod(
        lambda self: self.cache, lock=lambda self: self, condition=lambda self: self
    )
    def get_lock(self, value):
        return Locked.get.__wrapped__(self, value)

    def wait_for(self, predicate):
        self.wait_count += 1

    def notify_all(self):
        self.notify_count += 1


class CachedMethodTest(unittest.TestCase):

    def test_dict(self):
        cached = Cached({})

        self.assertEqual(cached.get(0), 0)
        self.assertEqual(cached.get(1), 1)
        self.assertEqual(cached.get(1), 1)
        self.assertEqual(cached.get(1.0), 1)
        self.assertEqual(cached.get(1.0), 1)

        cached.cache.clear()
        self.assertEqual(cached.get(1), 2)

    def test_nocache(self):
        cached = Cached(None)

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")

            self.assertEqual(cached.get(0), 0)
            self.assertEqual(cached.get(1), 1)
            self.assertEqual(cached.get(1), 2)
            self.assertEqual(cached.get(1.0), 3)
            self.assertEqual(cached.get(1.0), 4)

        self.assertEqual(len(w), 5)
        self.assertIs(w[0].category, DeprecationWarning)

    def test_locked_dict(self):
        cached = Locked({})

        self.assertEqual(cached.get(0), 0)
        self.assertEqual(cached.lock_count, 2)
        self.assertEqual(cached.get(1), 1)
        self.assertEqual(cached.lock_count, 4)
        self.assertEqual(cached.get(1), 1)
        self.assertEqual(cached.lock_count, 5)
        self.assertEqual(cached.get(1.0), 1)
        self.assertEqual(cached.lock_count, 6)
        self.assertEqual(cached.get(1.0), 1)
        self.assertEqual(cached.lock_count, 7)

        cached.cache.clear()
        self.assertEqual(cached.get(1), 2)
        self.assertEqual(cached.lock_count, 9)

    def test_locked_nocache(self):
        cached = Locked(None)

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")

            self.assertEqual(cached.get(0), 0)
            self.assertEqual(cached.get(1), 1)
            self.assertEqual(cached.get(1), 2)
            self.assertEqual(cached.get(1.0), 3)
            self.assertEqual(cached.get(1.0), 4)
            self.assertEqual(cached.lock_count, 0)

        self.assertEqual(len(w), 5)
        self.assertIs(w[0].category, DeprecationWarning)

    def test_condition_dict(self):
        cached = Conditioned({})

        self.assertEqual(cached.get(0), 0)
        self.assertEqual(cached.lock_count, 3)
        self.assertEqual(cached.wait_count, 1)
        self.assertEqual(cached.notify_count, 1)
        self.assertEqual(cached.get(1), 1)
        self.assertEqual(cached.lock_count, 6)
        self.assertEqual(cached.wait_count, 2)
        self.assertEqual(cached.notify_count, 2)
        self.assertEqual(cached.get(1), 1)
        self.assertEqual(cached.lock_count, 7)
        self.assertEqual(cached.wait_count, 3)
        self.assertEqual(cached.notify_count, 2)
        self.assertEqual(cached.get(1.0), 1)
        self.assertEqual(cached.lock_count, 8)
        self.assertEqual(cached.wait_count, 4)
        self.assertEqual(cached.notify_count, 2)
        self.assertEqual(cached.get(1.0), 1)
        self.assertEqual(cached.lock_count, 9)
        self.assertEqual(cached.wait_count, 5)
        self.assertEqual(cached.notify_count, 2)

        cached.cache.clear()
        self.assertEqual(cached.get(1), 2)
        self.assertEqual(cached.lock_count, 12)
        self.assertEqual(cached.wait_count, 6)
        self.assertEqual(cached.notify_count, 3)

    def test_condition_nospace(self):
        cached = Conditioned(LRUCache(maxsize=0))

        self.assertEqual(cached.get(0), 0)
        self.assertEqual(cached.lock_count, 3)
        self.assertEqual(cached.wait_count, 1)
        self.assertEqual(cached.notify_count, 1)
        self.assertEqual(cached.get(1), 1)
        self.assertEqual(cached.lock_count, 6)
        self.assertEqual(cached.wait_count, 2)
        self.assertEqual(cached.notify_count, 2)
        self.assertEqual(cached.get(1), 2)
        self.assertEqual(cached.lock_count, 9)
        self.assertEqual(cached.wait_count, 3)
        self.assertEqual(cached.notify_count, 3)
        self.assertEqual(cached.get(1.0), 3)
        self.assertEqual(cached.lock_count, 12)
        self.assertEqual(cached.wait_count, 4)
        self.assertEqual(cached.notify_count, 4)
        self.assertEqual(cached.get(1.0), 4)
        self.assertEqual(cached.lock_count, 15)
        self.assertEqual(cached.wait_count, 5)
        self.assertEqual(cached.notify_count, 5)

    def test_attributes_cond(self):
        cache = {}
        cached = Conditioned(cache)

        self.assertIs(Conditioned.get.cache(cached), cache)
        self.assertIs(Conditioned.get.cache_key, keys.methodkey)
        self.assertIs(Conditioned.get.cache_lock(cached), cached)
        self.assertIs(Conditioned.get.cache_condition(cached), cached)

    def test_clear_condition(self):
        cache = {}
        cached = Conditioned(cache)

        self.assertEqual(cached.get(0), 0)
        self.assertEqual(len(cache), 1)
        self.assertEqual(cached.lock_count, 3)
        Conditioned.get.cache_clear(cached)
        self.assertEqual(len(cache), 0)
        self.assertEqual(cached.lock_count, 4)
