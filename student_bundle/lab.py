"""Set up and open the course's JupyterLab, for students.

    python3 lab.py setup    # once: a .venv beside this file with the pinned packages and the course runtime
    python3 lab.py          # JupyterLab on lesson03/, offline unless ANTHROPIC_API_KEY is set
    python3 lab.py --notebook-dir lesson04          # lesson 4
    python3 lab.py handin   # lesson03_<student>_<time>.zip beside this file, for the instructor
    python3 lab.py handin --notebook-dir lesson04   # lesson04_<student>_<time>.zip

Runs with the standard library alone, on Linux, macOS and Windows, so that it works before
anything is installed. The lab is the course's, whatever else the student's machine has set up
for Jupyter: jupyter_config/ is its configuration folder (JUPYTER_CONFIG_DIR, so no ~/.jupyter
config applies; the student's own setting changes still go to ~/.jupyter/lab as usual), and it holds
  - labconfig/default_setting_overrides.json: the interface in Chinese (the zh_CN language pack),
    no "official Jupyter news" pop-up (the course's JupyterHub uses this file too);
  - labconfig/page_config.json: nbgrader's instructor tools (Create Assignment, Formgrader,
    Course List) disabled (on the Hub too); the two server extensions behind them are switched
    off on the command line;
  - no-hub/labconfig/page_config.json: without the course's JupyterHub there is no exchange, so
    the Assignment List and the Nbgrader menu that only held it are disabled too (lab.py only);
  - custom/custom.css: the words nbgrader's Validate button and dialog show, in Chinese;
  - migrated: jupyter_core's marker, so that it never copies a student's old IPython settings
    into this folder (on a Hub, where the folder is read-only, that copy would stop the server).
The instructor's repository runs `make lab` through this same file.

Hand-in without a Hub: `handin` zips the lesson's notebooks as saved on disk, named
<lesson>_<student>_<UTC time>.zip after the lesson's folder (lesson03, lesson04: nbgrader's
assignment names). The instructor collects such files, as sent or as downloaded from an LMS,
with nbgrader's own `nbgrader zip_collect <lesson>` (make collect), whose FileNameCollectorPlugin
reads the lesson, the student and the time back from that name (the pattern is in
nbgrader_config.py; tests/test_handin.py checks the two agree).
"""
from __future__ import annotations  # so that an older Python gets to the version message below

import argparse
import json
import os
import re
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
JUPYTER_CONFIG = HERE / "jupyter_config"
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")
EXCHANGE_SERVER_EXTENSION = "nbgrader.server_extensions.assignment_list"  # fetch and submit: the Hub's exchange
LOWEST_PYTHON = (3, 10)
# Letters, digits, dot, hyphen, underscore: a student id that is also a folder name on every system.
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
TIME_FORMAT = "%Y%m%dT%H%M%SZ"  # UTC, no colons (Windows file names); nbgrader parses it back
LESSON_FOLDER = re.compile(r"^lesson\d\d$")  # a lesson's folder is named as its nbgrader assignment


def venv_python(venv_dir: Path) -> Path:
    return venv_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def student_server_args(hub: bool = True) -> list:
    """Options of `jupyter lab` (and of jupyterhub-singleuser) that leave out the instructor's servers;
    without the Hub, also the exchange's. custom/custom.css is loaded (see the module docstring)."""
    off = INSTRUCTOR_SERVER_EXTENSIONS + (() if hub else (EXCHANGE_SERVER_EXTENSION,))
    return [*(f"--ServerApp.jpserver_extensions={name}=False" for name in off), "--LabApp.custom_css=True"]


def server_environment(config: Path, home: Path, hub: bool) -> dict:
    """JUPYTER_* variables for a student's server: `config` (this jupyter_config/, wherever it is installed) as the
    configuration folder, the student's own setting changes and workspaces where JupyterLab keeps them by
    default (under `home`), and without the Hub the no-hub page_config too."""
    user_lab = home / ".jupyter" / "lab"
    env = {"JUPYTER_CONFIG_DIR": str(config), "JUPYTERLAB_SETTINGS_DIR": str(user_lab / "user-settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(user_lab / "workspaces")}
    if not hub:
        env["JUPYTER_CONFIG_PATH"] = str(config / "no-hub")
    return env


def student_environment(environ=os.environ) -> dict:
    """The environment for the student's server without the Hub; JUPYTERLAB_* already set (the tests) are kept."""
    env = dict(environ)
    ours = server_environment(JUPYTER_CONFIG, Path.home(), hub=False)
    env.update({name: value for name, value in ours.items() if not name.startswith("JUPYTERLAB_")})
    for name in ("JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env.setdefault(name, ours[name])
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
               *student_server_args(hub=False), *(["--allow-root"] if root else []), *jupyter_args]
    try:
        return subprocess.run(command, env=student_environment()).returncode
    except KeyboardInterrupt:
        return 0


def handin_name(assignment: str, student: str, when: float) -> str:
    """<lesson>_<student>_<UTC time>.zip: what nbgrader_config.py's FileNameCollectorPlugin.named_regexp reads."""
    return f"{assignment}_{student}_{time.strftime(TIME_FORMAT, time.gmtime(when))}.zip"


def handin(notebook_dir: Path, student: str | None, out_dir: Path, when: float | None = None) -> Path:
    """Zip the lesson's notebooks (as saved on disk) under the name the instructor's zip_collect sorts by."""
    notebook_dir = notebook_dir.resolve()
    if not LESSON_FOLDER.match(notebook_dir.name):  # the zip's name would tell the instructor's side no lesson
        sys.exit(f"{notebook_dir} 不是某一课的文件夹：用 --notebook-dir lesson03 或 --notebook-dir lesson04 指明交哪一课。")
    notebooks = sorted(notebook_dir.glob("*.ipynb"))
    if not notebooks:
        sys.exit(f"在 {notebook_dir} 里没有找到 notebook（.ipynb）：用 --notebook-dir 指向课程的文件夹。")
    for notebook in notebooks:
        try:
            json.loads(notebook.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as error:
            sys.exit(f"{notebook.name} 不是完整的 notebook 文件（{error}）：在 JupyterLab 里重新保存一次再提交。")
    student = student if student is not None else input("你的学号（老师给的，只用字母、数字、.、-、_）：").strip()
    if not STUDENT_ID.match(student):
        sys.exit(f"学号 {student!r} 不合适：只能用字母、数字、.、-、_，以字母或数字开头，最长 64 个字符。")
    target = out_dir / handin_name(notebook_dir.name, student, time.time() if when is None else when)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for notebook in notebooks:
            archive.write(notebook, notebook.name)
    size = target.stat().st_size / 1024
    print(f"打包好了：{target}（{size:.0f} KB，{len(notebooks)} 个 notebook，按磁盘上保存的版本）。\n"
          "把这个文件上传到课程网站，或者按老师说的方式交给老师；改了再交，就再运行一次，老师取最新的一份。")
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False,
                                     description="课程的 JupyterLab：setup 装环境，open（默认）打开课程，handin 打包提交。")
    parser.add_argument("command", nargs="?", choices=("setup", "open", "handin"), default="open")
    parser.add_argument("--venv", type=Path, default=HERE / ".venv", help="虚拟环境的位置（默认：本文件旁边的 .venv）")
    parser.add_argument("--notebook-dir", type=Path, default=HERE / "lesson03", help="JupyterLab 打开的文件夹")
    parser.add_argument("--student", help="handin：你的学号（不给就问）")
    parser.add_argument("--out", type=Path, default=HERE, help="handin：提交文件放在哪里（默认：本文件旁边）")
    args, jupyter_args = parser.parse_known_args(argv)
    if args.command == "setup":
        setup(args.venv)
        return 0
    if args.command == "handin":
        handin(args.notebook_dir, args.student, args.out)
        return 0
    return open_lab(args.venv, args.notebook_dir, jupyter_args)


if __name__ == "__main__":
    sys.exit(main())
