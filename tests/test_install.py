"""A plain (non-editable) install works on its own: `paperclub demo` from another folder.

The package is built into a wheel from a copy of the source, offline (no build isolation: the test
environment's setuptools builds it), installed without dependencies into a fresh venv that borrows this
environment's installed libraries, and run from a folder that holds no source. About 10 s on 2 cores.
"""

from __future__ import annotations

import re
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["pyproject.toml", "README.md", "bot", "cogs", "db", "standin"]


def _run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, capture_output=True, text=True, timeout=180, check=False, **kwargs)
    assert proc.returncode == 0, f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with paperclub installed from its wheel; returns the venv's folder."""
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(origin, source / name)
    wheels = work / "wheels"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--wheel-dir", str(wheels), str(source)]
    )
    (wheel,) = wheels.glob("paperclub-*.whl")
    target = work / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
        ]
        + [str(wheel)]
    )
    # The dependencies come from this environment: a path line in a .pth file adds the folder without
    # running that folder's own .pth files, so this environment's editable paperclub stays out.
    (own,) = (Path(p) for p in _site_packages(python))
    (own / "_paperclub_test_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return target


def _site_packages(python: Path) -> list[str]:
    proc = _run([str(python), "-c", "import site; print('\\n'.join(site.getsitepackages()))"])
    return proc.stdout.split()


def test_the_installed_package_is_the_wheel(installed: Path, tmp_path: Path) -> None:
    proc = _run([str(installed / "bin" / "python"), "-c", "import bot; print(bot.__file__)"], cwd=tmp_path)
    assert Path(proc.stdout.strip()).is_relative_to(installed)


def test_demo_runs_from_a_plain_install(installed: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = _run([str(installed / "bin" / "paperclub"), "demo"], cwd=elsewhere, env=env)
    assert "imported examples/club.yaml: guild" in proc.stdout
    assert "sessions 15 new" in proc.stdout
    assert re.search(r"\nDemo finished: \d+ scenes\.$", proc.stdout.rstrip())
    assert "Traceback" not in proc.stdout + proc.stderr
    assert list(elsewhere.iterdir()) == []  # the demo's store lives in a temporary folder
