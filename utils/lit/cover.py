"""A few files whose emitted code has every construct of them all.

The compile sweeps (compile-all.py, gpu-run-all.py compile) compile the
code ksc emits for every .kdsl file of the tests with nvcc, Clang, NVRTC,
ptxas and the host compilers. By default (`--cover`) they compile a
representative subset instead: ksc emits every file (cheap), the
constructs of each output are collected, and outputs are taken greedily,
the one adding the most constructs for its size first, until every
construct of any output is in one that is compiled. `utils/test --param exhaustive=1`
compiles every file (docs/cuda.md, "The test suite").

A construct of C++ is what the emitter prints the same way whatever the
kernel's names: a qualified name with its template arguments
(`ksc::atomic_add`, `ksc::array<const T, 2>`, `std::min`, `::max`), a
keyword of C++ or CUDA, a conversion (`float(`), a kind of literal (`1.5f`,
`2u`, `1e-05`, `INFINITY`), and an operator. A construct of PTX is an
instruction with its types and modifiers (`ld.global.f32`).
"""

import re

KEYWORDS = {
    "for", "while", "do", "if", "else", "break", "continue", "return",
    "const", "static", "inline", "struct", "auto", "void", "bool", "int",
    "float", "double", "uint32_t", "int64_t", "true", "false", "sizeof",
    "static_cast", "reinterpret_cast", "extern", "namespace", "template",
    "__global__", "__device__", "__host__", "__forceinline__",
    "__launch_bounds__", "blockIdx", "blockDim", "threadIdx", "gridDim",
    "INFINITY", "NAN", "KSC_INLINE", "KSC_INLINE_LAMBDA",
}

# The types of template arguments that count as themselves.
TYPES = {"float", "double", "int", "uint32_t", "int64_t", "bool", "unsigned"}

TOKEN = re.compile(
    r"(?P<qualified>(?:\b(?:ksc|std))?::[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*"
    r"(?:<[^<>;{}()]*(?:<[^<>;{}()]*>[^<>;{}()]*)*>)?)"
    r"|(?P<cast>\b(?:float|double|int|uint32_t|int64_t|bool|unsigned)\()"
    r"|(?P<literal>\b\d+(?:\.\d*)?(?:e[-+]?\d+)?[fu]?\b)"
    r"|(?P<word>\b[A-Za-z_]\w*\b)"
    r"|(?P<operator><<=?|>>=?|[-+*/%&|^]=|[!=<>]=|&&|\|\||\+\+|--|[?~%^])")


def normalize(name):
    """A qualified name with what does not change the construct abstracted:
    the element type of an array (the element types are constructs of
    their own), the size of a tape."""
    name = re.sub(r"\s+", " ", name)
    array = re.match(r"ksc::array<(const )?.*?(, \d)?>$", name)
    if array:
        return "ksc::array<%sT%s>" % (array.group(1) or "",
                                      array.group(2) or "")
    return re.sub(r"\b\d+\b", "N", name) if "tape" in name else name


def literal_kind(text):
    kind = "int"
    if "." in text or "e" in text:
        kind = "real"
    if "e" in text:
        kind += "-exponent"
    if text.endswith("f"):
        kind += "-f"
    if text.endswith("u"):
        kind += "-u"
    return "literal:" + kind


# An instruction of PTX, with its types and modifiers (`ld.global.f32`).
PTX_INSTRUCTION = re.compile(r"^\s*(?:@%p\d+\s+)?([a-z][a-z0-9]*(?:\.[a-z0-9]+)*)",
                             re.MULTILINE)


def constructs(text):
    """The constructs of emitted code `text` (C++, or PTX: its
    instructions)."""
    if ".version" in text and ".target" in text:
        return set(PTX_INSTRUCTION.findall(text))
    found = set()
    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        token = match.group(kind)
        if kind == "literal":
            found.add(literal_kind(token))
        elif kind == "word":
            if token in KEYWORDS:
                found.add(token)
        elif kind == "qualified":
            # Not the kernel's own names (::saxpy in a launch function,
            # ksc_kernels::saxpy); in template arguments, a struct is a
            # struct whatever its name.
            if token.startswith("::") and token not in ("::min", "::max"):
                continue
            found.add(normalize(token))
        else:
            found.add(token)
    return found


# What compiling an output costs, in bytes of it: a compiler's start-up
# (nvcc's pipeline, the runtime header) is worth this many bytes of code.
START_COST = 25000


def choose(outputs):
    """The keys of `outputs` (key -> emitted text) to compile: every
    construct of any output is in one of them. Greedily, the output that
    adds the most constructs for its cost (its size, plus a compiler's
    start-up) first: derivative kernels make outputs large, and compilers
    take long on them."""
    left = {key: constructs(text) for key, text in outputs.items()}
    missing = set().union(*left.values()) if left else set()
    chosen = []
    while missing:
        best = max(sorted(left), key=lambda key: len(left[key] & missing) /
                   (START_COST + len(outputs[key])))
        chosen.append(best)
        missing -= left.pop(best)
    return sorted(chosen)
