"""满分：学生在导入之后加了一个「设置」单元格：%matplotlib inline、%config、%xmode，logging.basicConfig，
warnings.filterwarnings/simplefilter，random.seed，sys.setrecursionlimit，改 os.environ，把 tempfile.tempdir 设成当前
文件夹。都是 notebook 里常见的老实写法，不会在以后的单元格里运行学生的代码。"""
# %% extra after imports
%matplotlib inline
%config InlineBackend.figure_format = "retina"
%xmode Minimal
import logging
import random
import sys
import warnings

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
logging.getLogger("agent").setLevel(logging.DEBUG)
warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.simplefilter("ignore", ResourceWarning)
random.seed(0)
sys.setrecursionlimit(5000)
os.environ["PYTHONIOENCODING"] = "utf-8"
os.environ.setdefault("AGENT_LOG_LEVEL", "INFO")
tempfile.tempdir = os.getcwd()
logging.getLogger("agent").info("设置好了")
