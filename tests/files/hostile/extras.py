# shipped as conftest.py, sitecustomize.py, usercustomize.py, a .pth line, minitorch/__init__.py, ...
import builtins as _hx_builtins
import os as _hx_os

_hx_builtins.HX_EXTRAS_RAN = True
for _hx_dir in ("/tmp", _hx_os.getcwd()):
    try:
        with open(_hx_os.path.join(_hx_dir, "@@TOKEN@@-extras-ran"), "w") as _hx_f:
            _hx_f.write("ran")
    except OSError:
        pass
