"""A stand-in for NVIDIA Warp that lets a module ksc emits be imported
where Warp is not installed: every name is a permissive object, and the
decorators return what they decorate."""


class _Anything:
    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return self

    def __getattr__(self, name):
        return self

    def __getitem__(self, key):
        return self


def __getattr__(name):
    return _Anything()
