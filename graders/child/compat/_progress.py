"""A silent `tqdm` for graded code: wraps an iterable and counts, never prints.

Students add `tqdm` progress bars to their training loops (`for epoch in
tqdm(range(...), total=..., unit="epoch")`, `iter(tqdm(...))` with `next`,
`update`, `set_postfix`). Grading needs the loop, not the bar: this class
keeps tqdm's calling conventions and its counters (`n`, `total`), yields the
wrapped items unchanged, and writes nothing.
"""


class tqdm:
    """tqdm(iterable=None, desc=None, total=None, ..., initial=0, ...): the iterable, unchanged."""

    def __init__(self, iterable=None, desc=None, total=None, *args, initial=0, disable=False, **kwargs):
        self.iterable = iterable
        self.desc = desc or ""
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except (TypeError, AttributeError):
                total = None
        self.total = total
        self.n = initial
        self.disable = disable
        self.postfix = None

    def __iter__(self):
        for item in self.iterable:
            yield item
            self.n += 1

    def __len__(self):
        if self.total is not None:
            return int(self.total)
        return len(self.iterable)

    def __bool__(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        self.n += n
        return True

    def set_description(self, desc=None, refresh=True):
        self.desc = desc or ""

    set_description_str = set_description

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        self.postfix = dict(ordered_dict or {}, **kwargs)

    def set_postfix_str(self, s="", refresh=True):
        self.postfix = s

    def reset(self, total=None):
        self.n = 0
        if total is not None:
            self.total = total

    def refresh(self, *args, **kwargs):
        return None

    def clear(self, *args, **kwargs):
        return None

    def close(self):
        return None

    def display(self, *args, **kwargs):
        return None

    def unpause(self):
        return None

    @property
    def format_dict(self):
        return {"n": self.n, "total": self.total, "desc": self.desc, "postfix": self.postfix}

    @classmethod
    def write(cls, s, file=None, end="\n", nolock=False):
        return None

    @classmethod
    def pandas(cls, *args, **kwargs):
        return None


def trange(*args, **kwargs):
    """tqdm(range(*args), **kwargs)."""
    return tqdm(range(*args), **kwargs)


#: what `from tqdm import ...` / `from tqdm.auto import ...` find (other names are inert stand-ins)
EXPORTS = {
    "tqdm": tqdm, "trange": trange, "tqdm_notebook": tqdm, "tnrange": trange,
    "tqdm_gui": tqdm, "tgrange": trange, "__version__": "0+grading",
}
