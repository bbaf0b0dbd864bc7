"""Environments (DESIGN §14), each figure next to its floor measured beside it:

* a python environment built by `ensure_built` (key, relocatable venv, install, rewrite of build paths,
  description, atomic rename) vs a plain ``uv venv`` + ``uv pip install`` of the same requirements into a
  fresh folder (goal: at most 1.2x); the install step alone is shown too. uv's cache is warmed first, so
  both sides install from it.
* an image unpacked daemonless by `unpack_image` (digest check, whiteouts, ownership, modes, times) vs
  GNU ``tar -x`` of the same layer tars (goal: at most 1.3x), as a docker-save archive with plain layers
  and as an OCI layout with gzip layers (vs ``tar -xzf``). The image is two layers: the interpreter's
  standard library (~8,000 files) and a layer that deletes and replaces some of it. CPU seconds are
  printed beside wall seconds (they move less with the machine's load).

Rounds alternate the two sides; the medians are compared.

    python benchmarks/bench_environments.py [--rounds 5] [--dir /dev/shm]
"""

from __future__ import annotations

import argparse
import io
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

from reqbench.core.environments import ensure_built, load_environment  # noqa: E402
from reqbench.core.environments.image_source import ImageReader, image_layers  # noqa: E402
from reqbench.core.environments.image_unpack import unpack_image  # noqa: E402
from reqbench.core.environments.interpreters import base_interpreter  # noqa: E402
from reqbench.core.environments.python_layer import find_uv  # noqa: E402

REQUIREMENTS = ["requests==2.32.3", "python-dateutil==2.9.0.post0", "tomli-w==1.0.0", "packaging==24.1"]


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def bench_python(work: Path, rounds: int) -> None:
    uv = find_uv()
    assert uv is not None, "pip install uv"
    exe = str(base_interpreter("host"))
    req = work / "requirements.txt"
    req.write_text("\n".join(REQUIREMENTS) + "\n")
    spec = load_environment({"python": {"requirements_file": "requirements.txt"}}, origin="bench", base_dir=work)
    ours, plain, install_only = [], [], []
    for n in range(rounds + 1):
        cache = work / f"cache{n}"
        venv = work / f"plain{n}"

        def plain_build(venv: Path = venv) -> None:
            subprocess.run([uv, "venv", "-q", "--python", exe, str(venv)], check=True)
            install_only.append(_timed(lambda: subprocess.run(
                [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), "-r", str(req)], check=True)))

        t_plain = _timed(plain_build)
        t_ours = _timed(lambda cache=cache: ensure_built(spec, work, cache=cache))
        if n:  # round 0 warms uv's cache and the imports
            plain.append(t_plain)
            ours.append(t_ours)
        shutil.rmtree(cache)
        shutil.rmtree(venv)
    figure("python environment build (ensure_built)", statistics.median(ours),
           "uv venv + uv pip install", statistics.median(plain), goal="<= 1.2")
    figure("python environment build (ensure_built)", statistics.median(ours),
           "uv pip install alone (venv made before)", statistics.median(install_only[1:]), goal="info")


def _layer(entries: list[tuple[str, bytes | None]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.size = len(data or b"")
            tar.addfile(info, io.BytesIO(data or b""))
    return buf.getvalue()


def _cpu() -> tuple[float, float]:
    """(this process's CPU seconds, all threads; its waited-for children's CPU seconds)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def bench_image(work: Path, rounds: int) -> None:
    from tests.core.environments.imagekit import docker_save, oci_layout  # the layouts the tests use

    stdlib = Path(base_interpreter("host")).parent.parent / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    lower = work / "lower.tar"
    with tarfile.open(lower, "w") as tar:
        tar.add(stdlib, arcname="usr/lib/python3", filter=lambda t: None if "site-packages" in t.name else t)
    upper = _layer([("usr/lib/python3/.wh.json", None), ("usr/lib/python3/email/.wh..wh..opq", None),
                    ("usr/lib/python3/email/__init__.py", b"# replaced\n"), ("etc/marker", b"x\n")])
    (work / "upper.tar").write_bytes(upper)
    layers = [lower.read_bytes(), upper]
    archive = docker_save(work / "image.tar", layers)
    layout = oci_layout(work / "layout", layers)
    reader = ImageReader(layout, "bench")
    gz_layers = [layout / ref.name for ref in image_layers(reader)]
    files = sum(1 for _ in tarfile.open(lower))
    print(f"image: {files} members, {lower.stat().st_size / 1e6:.0f} MB lower layer, in {work}")
    plain_cmds = [["tar", "-xf", str(lower)], ["tar", "-xf", str(work / "upper.tar")]]
    cases = [("docker-save archive (plain layers)", archive, plain_cmds),
             ("OCI layout (gzip layers)", layout, [["tar", "-xzf", str(p)] for p in gz_layers])]
    for label, source, tar_cmds in cases:
        walls: dict[str, list[float]] = {"ours": [], "tar": []}
        cpus: dict[str, list[float]] = {"ours": [], "tar": []}
        for n in range(rounds + 1):
            a, b = work / f"ours{n}", work / f"tar{n}"
            a.mkdir()
            b.mkdir()
            before = _cpu()
            t_tar = _timed(lambda b=b, cmds=tar_cmds: [subprocess.run([*c, "-C", str(b)], check=True) for c in cmds])
            middle = _cpu()
            t_ours = _timed(lambda a=a, src=source: unpack_image(src, a, origin="bench"))
            after = _cpu()
            if n:
                walls["tar"].append(t_tar)
                walls["ours"].append(t_ours)
                cpus["tar"].append(middle[1] - before[1])
                cpus["ours"].append(after[0] - middle[0])
            shutil.rmtree(a)
            shutil.rmtree(b)
        figure(f"image unpack, {label} (unpack_image)", statistics.median(walls["ours"]),
               "tar -x of its layers", statistics.median(walls["tar"]), goal="<= 1.3")
        figure(f"image unpack CPU, {label} (unpack_image, digest thread included)", statistics.median(cpus["ours"]),
               "tar -x CPU", statistics.median(cpus["tar"]), goal="info", unit="cpu-s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", default="/var/tmp", help="Where to build and unpack (a disk, or /dev/shm).")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    with tempfile.TemporaryDirectory(prefix="bench-env-", dir=args.dir) as tmp:
        work = Path(tmp)
        (work / "py").mkdir()
        (work / "img").mkdir()
        bench_python(work / "py", args.rounds)
        bench_image(work / "img", args.rounds)


if __name__ == "__main__":
    main()
