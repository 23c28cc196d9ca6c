

class IsClose(Function):  # noqa: F821 (as the course gives it: a forward and no backward)
    @staticmethod
    def forward(ctx, a, b):
        return a.f.is_close_zip(a, b)
