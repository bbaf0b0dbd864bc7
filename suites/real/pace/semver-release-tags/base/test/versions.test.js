"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");

const tags = require("../src/index");

test("parseTag reads v-prefixed and plain tags", () => {
  assert.equal(tags.parseTag("v1.2.3"), "1.2.3");
  assert.equal(tags.parseTag("=2.0.0-rc.1"), "2.0.0-rc.1");
  assert.throws(() => tags.parseTag("nightly"), TypeError);
});

test("sortTags orders by version, pre-releases before their release", () => {
  assert.deepEqual(tags.sortTags(["v1.10.0", "v1.2.0", "v1.10.0-rc.1", "v1.9.9"]),
    ["v1.2.0", "v1.9.9", "v1.10.0-rc.1", "v1.10.0"]);
});
