"""Set up and open the course's JupyterLab, for students.

    python3 lab.py setup    # once: a .venv beside this file with the pinned packages and the course runtime
    python3 lab.py          # JupyterLab on lesson03/, offline unless ANTHROPIC_API_KEY is set

Runs with the standard library alone, on Linux, macOS and Windows, so that it works before
anything is installed. The lab hides nbgrader's instructor tools (Create Assignment,
Formgrader, Course List) and keeps Validate and the Assignment List: the page_config in
jupyter_config/ disables their lab plugins, and the two server extensions behind them are
switched off on the command line. The instructor's repository runs `make lab` through this
same file.
"""
import argparse
import os
import subprocess
import sys
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
JUPYTER_CONFIG = HERE / "jupyter_config"
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")
LOWEST_PYTHON = (3, 10)


def venv_python(venv_dir: Path) -> Path:
    return venv_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def student_server_args() -> list:
    """Options of `jupyter lab` (and of jupyterhub-singleuser) that leave out the instructor's servers."""
    return [f"--ServerApp.jpserver_extensions={name}=False" for name in INSTRUCTOR_SERVER_EXTENSIONS]


def student_environment(environ=os.environ) -> dict:
    """The environment for the student's server: our page_config first on JUPYTER_CONFIG_PATH."""
    env = dict(environ)
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(JUPYTER_CONFIG), environ.get("JUPYTER_CONFIG_PATH")]))
    return env


def setup(venv_dir: Path) -> None:
    if sys.version_info < LOWEST_PYTHON:
        sys.exit(f"需要 Python {'.'.join(map(str, LOWEST_PYTHON))} 或更新的版本，现在是 {sys.version.split()[0]}。")
    if not venv_python(venv_dir).exists():
        print(f"创建虚拟环境（venv）：{venv_dir}")
        venv.EnvBuilder(with_pip=True).create(venv_dir)
    wheels = sorted((HERE / "wheels").glob("*.whl"))
    print("安装课程需要的软件包（第一次需要联网，几分钟）……")
    subprocess.run([str(venv_python(venv_dir)), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
                    "-r", str(HERE / "requirements.txt"), *map(str, wheels)], check=True)
    print(f"装好了。打开课程：{Path(sys.executable).name} {Path(__file__).name}")


def open_lab(venv_dir: Path, notebook_dir: Path, jupyter_args: list) -> int:
    python = venv_python(venv_dir)
    if not python.exists():
        sys.exit(f"还没有装好环境：先运行 {Path(sys.executable).name} {Path(__file__).name} setup")
    root = getattr(os, "geteuid", lambda: 1)() == 0
    command = [str(python), "-m", "jupyterlab", f"--notebook-dir={notebook_dir}", "--ServerApp.ip=127.0.0.1",
               *student_server_args(), *(["--allow-root"] if root else []), *jupyter_args]
    try:
        return subprocess.run(command, env=student_environment()).returncode
    except KeyboardInterrupt:
        return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description="课程的 JupyterLab：setup 装环境，open（默认）打开课程。")
    parser.add_argument("command", nargs="?", choices=("setup", "open"), default="open")
    parser.add_argument("--venv", type=Path, default=HERE / ".venv", help="虚拟环境的位置（默认：本文件旁边的 .venv）")
    parser.add_argument("--notebook-dir", type=Path, default=HERE / "lesson03", help="JupyterLab 打开的文件夹")
    args, jupyter_args = parser.parse_known_args(argv)
    if args.command == "setup":
        setup(args.venv)
        return 0
    return open_lab(args.venv, args.notebook_dir, jupyter_args)


if __name__ == "__main__":
    sys.exit(main())
