"""Imports a module `ksc --emit=warp` wrote (with a stand-in for Warp), and
checks that every name it defines is defined once: the module's functions
and structs, each struct's fields, each function's parameters and its
variables (an assignment target is one variable: two source variables
must not share one). Prints the names; exits 1 on a problem.

  import-module.py MODULE.py SOURCE-VARIABLES...

SOURCE-VARIABLES: how many distinct variables (parameters included) each
function has in the source, as NAME=COUNT."""
import ast
import importlib.util
import os
import sys

path = sys.argv[1]
expected = dict(arg.split("=") for arg in sys.argv[2:])
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "stub"))
spec = importlib.util.spec_from_file_location("emitted", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

tree = ast.parse(open(path, encoding="utf-8").read())
problems = []
top = [node.name for node in tree.body
       if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
if len(set(top)) != len(top):
    problems.append("a module name is defined twice: %s" % top)
print("module:", " ".join(top))
for node in tree.body:
    if isinstance(node, ast.ClassDef):
        fields = [item.target.id for item in node.body
                  if isinstance(item, ast.AnnAssign)]
        print("struct %s:" % node.name, " ".join(fields))
        if len(set(fields)) != len(fields):
            problems.append("a field of %s is defined twice" % node.name)
    if isinstance(node, ast.FunctionDef):
        params = [arg.arg for arg in node.args.args]
        stored = {target.id for sub in ast.walk(node)
                  if isinstance(sub, (ast.Assign, ast.AnnAssign))
                  for target in (sub.targets if isinstance(sub, ast.Assign)
                                 else [sub.target])
                  if isinstance(target, ast.Name)}
        names = set(params) | stored
        print("def %s:" % node.name, " ".join(params), "|",
              " ".join(sorted(stored - set(params))))
        want = expected.get(node.name)
        if want is not None and len(names) != int(want):
            problems.append("%s has %d variables, the source %s" %
                            (node.name, len(names), want))
for problem in problems:
    print("problem:", problem)
sys.exit(1 if problems else 0)
