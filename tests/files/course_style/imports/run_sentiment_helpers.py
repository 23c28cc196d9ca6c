

def _course_progress():
    """tqdm as students use it: wrapping range/enumerate with totals, iter/next, update, set_postfix."""
    seen = [epoch for epoch in tqdm(range(1, 4), total=3, unit="epoch")]
    pairs = [(i, x) for i, x in tqdm(enumerate([10, 20]), total=2)]
    stage = iter(tqdm(range(1, 7), total=6, unit="step"))
    first = next(stage)
    bar = tqdm(total=5)
    bar.update(2)
    bar.set_postfix(loss=0.5)
    bar.set_description("train")
    bar.close()
    return {"seen": seen, "pairs": [list(p) for p in pairs], "first": first, "n": bar.n, "len": len(bar)}


def _course_debugger():
    """A leftover breakpoint in graded code."""
    pdb.set_trace()
    breakpoint()
    return "continued"


def _course_data():
    """Loading data or embeddings while grading: a clear error, not a download."""
    messages = []
    for load in (lambda: load_dataset("glue", "sst2"), lambda: load_dataset_from_module("glue"),
                 lambda: embeddings.GloveEmbedding("wikipedia_gigaword", d_emb=50, show_progress=True)):
        try:
            load()
        except RuntimeError as exc:
            messages.append(str(exc))
    return messages
