"""Make scratch/ch06_*.py importable as attnlib.book.ch06_* (before i19's merge)."""
import importlib.util, sys, types
import attnlib
here = __file__.rsplit("/", 1)[0]
if "attnlib.book" not in sys.modules:
    pkg = types.ModuleType("attnlib.book"); pkg.__path__ = []; sys.modules["attnlib.book"] = pkg
for name in ("ch06_model", "ch06_lengths"):
    spec = importlib.util.spec_from_file_location(f"attnlib.book.{name}", f"{here}/{name}.py")
    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod; spec.loader.exec_module(mod)
    setattr(sys.modules["attnlib.book"], name, mod)
