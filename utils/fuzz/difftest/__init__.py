"""ksc-difftest, the differential random tester of ksc (run it as
utils/fuzz/ksc-difftest.py; that script's docstring explains it).

Modules, in the order a seed goes through them:
  types              the kernel language's types, bounds and kernel
                     parameters; E, Var, Arr, Func, Ctx
  generator          Generator: the random stream, scopes, names, the whole
                     file and its inputs, composed of the mixins
  generator_expr       expressions
  generator_stmt       simple statements, and the choice of the next one
  generator_control    blocks, if/else, loops, break/continue/return
  generator_func       constants, device functions, kernels
  native             the case as plain C++ (prelude, harness), its compile
  case               the case files (case.kdsl, inputs.json, meta.json)
  tools              running ksc, ksc-run and the host compiler
  compare            ksc-run's arrays against the native side's
  check              checking a case (both ways, or --grad's gradient
                     check), --check, reports
  reduce             --reduce: delta debugging of a kept failing case
  runner             running seeds (-j, --keep), the summary
  cli                the command line
"""
