"""DirectoryLoader: every kind of file in a tree, in sorted order, failures reported."""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from pathlib import Path

import pytest

from loaders import DirectoryLoader, TextLoader
from loaders.base import BaseLoader
from loaders.testing import LoaderConformance
from rag import Document
from rag.errors import MissingDependencyError, ValidationError

needs_symlinks = pytest.mark.skipif(
    not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks"
)


@pytest.fixture
def tree(tmp_path: Path, make_pdf) -> Path:
    """A corpus with every supported kind of file, plus the awkward ones."""
    root = tmp_path / "corpus"
    (root / "guides" / "deep").mkdir(parents=True)
    (root / "data").mkdir()
    (root / ".git").mkdir()
    (root / "readme.txt").write_text("Top level readme.\n")
    (root / "guides" / "intro.md").write_text("# Intro\n\nWelcome.\n")
    (root / "guides" / "deep" / "page.html").write_text("<title>Deep</title><p>Deep page</p>")
    (root / "data" / "people.csv").write_text("name,city\nAda,London\nAlan,Wilmslow\n")
    (root / "data" / "config.json").write_text(json.dumps({"name": "demo"}))
    (root / "data" / "events.jsonl").write_text('{"e": 1}\n{"e": 2}\n')
    (root / "latin1.txt").write_bytes("Crème brûlée".encode("latin-1"))
    (root / ".env").write_text("SECRET=1\n")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    make_pdf(root / "guides" / "manual.pdf", [["Manual page one"], ["Manual page two"]])
    return root


def add_binary(root: Path) -> Path:
    path = root / "image.bin"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    return path


def add_undecodable(root: Path) -> Path:
    path = root / "broken.txt"
    path.write_bytes(b"\x81\x8d\x8f\x90\x9d")  # neither UTF-8 nor Windows-1252
    return path


def sources(documents: list[Document], root: Path) -> list[str]:
    return [
        Path(document.metadata["source"]).relative_to(root).as_posix() for document in documents
    ]


class TestDirectoryLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, tree: Path) -> DirectoryLoader:
        return DirectoryLoader(str(tree), glob="**/*.txt")

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[DirectoryLoader, str]:
        path = str(tmp_path / "no-such-dir")
        return DirectoryLoader(path), path


def test_default_loads_every_visible_file_in_sorted_path_order(tree: Path) -> None:
    documents = DirectoryLoader(str(tree)).load()
    assert sources(documents, tree) == [
        "data/config.json",
        "data/events.jsonl",
        "data/events.jsonl",
        "data/people.csv",
        "data/people.csv",
        "guides/deep/page.html",
        "guides/intro.md",
        "guides/manual.pdf",
        "guides/manual.pdf",
        "latin1.txt",
        "readme.txt",
    ]


def test_each_file_is_read_by_the_loader_for_its_suffix(tree: Path) -> None:
    by_source = {}
    for document in DirectoryLoader(str(tree)).load():
        by_source.setdefault(Path(document.metadata["source"]).name, []).append(document)
    assert by_source["intro.md"][0].metadata["title"] == "Intro"
    assert by_source["page.html"][0].metadata["title"] == "Deep"
    assert [d.metadata["row"] for d in by_source["people.csv"]] == [0, 1]
    assert json.loads(by_source["config.json"][0].page_content) == {"name": "demo"}
    assert [d.metadata["seq_num"] for d in by_source["events.jsonl"]] == [1, 2]
    assert [d.metadata["page"] for d in by_source["manual.pdf"]] == [0, 1]
    assert by_source["manual.pdf"][1].page_content == "Manual page two"


def test_source_is_the_given_directory_joined_with_the_relative_path(tree: Path) -> None:
    documents = DirectoryLoader(str(tree), glob="*.txt").load()
    assert documents[-1].metadata["source"] == os.path.join(str(tree), "readme.txt")


def test_latin1_text_is_detected_by_default(tree: Path) -> None:
    [document] = DirectoryLoader(str(tree), glob="latin1.txt").load()
    assert document.page_content == "Crème brûlée"


def test_threads_give_the_same_documents_in_the_same_order(tree: Path) -> None:
    sequential = DirectoryLoader(str(tree)).load()
    threaded = DirectoryLoader(str(tree), use_multithreading=True, max_concurrency=3).load()
    assert threaded == sequential


def test_threaded_order_holds_when_early_files_are_slowest(tmp_path: Path) -> None:
    import time

    class SlowFirst(BaseLoader):
        def __init__(self, path: str) -> None:
            self.path = path

        def lazy_load(self):
            if self.path.endswith("00.txt"):
                time.sleep(0.2)
            yield Document(Path(self.path).name, {"source": self.path})

    for number in range(12):
        (tmp_path / f"{number:02d}.txt").write_text("x")
    documents = DirectoryLoader(
        str(tmp_path), loader_cls=SlowFirst, use_multithreading=True, max_concurrency=4
    ).load()
    assert [d.page_content for d in documents] == [f"{n:02d}.txt" for n in range(12)]


def test_hidden_files_and_directories_are_left_out_by_default(tree: Path) -> None:
    names = sources(DirectoryLoader(str(tree)).load(), tree)
    assert ".env" not in names and ".git/HEAD" not in names


def test_load_hidden_includes_files_in_hidden_directories(tree: Path) -> None:
    names = sources(DirectoryLoader(str(tree), load_hidden=True).load(), tree)
    assert ".git/HEAD" in names
    assert ".env" not in names  # the default glob itself excludes dot-names, as LangChain's


def test_load_hidden_with_a_glob_for_dotfiles_includes_them(tree: Path) -> None:
    names = sources(DirectoryLoader(str(tree), glob=".*", load_hidden=True).load(), tree)
    assert names == [".env"]


def test_glob_without_double_star_stays_at_the_top_unless_recursive(tree: Path) -> None:
    assert sources(DirectoryLoader(str(tree), glob="*.md").load(), tree) == []
    assert sources(DirectoryLoader(str(tree), glob="*.md", recursive=True).load(), tree) == [
        "guides/intro.md"
    ]


def test_several_globs_load_a_file_matched_twice_only_once(tree: Path) -> None:
    documents = DirectoryLoader(str(tree), glob=["**/*.txt", "*.txt", "readme.*"]).load()
    assert sources(documents, tree) == ["latin1.txt", "readme.txt"]


def test_exclude_patterns_leave_files_out(tree: Path) -> None:
    names = sources(DirectoryLoader(str(tree), exclude=["*.pdf", "*.json*"]).load(), tree)
    assert not any(name.endswith((".pdf", ".json", ".jsonl")) for name in names)
    assert "readme.txt" in names


def test_loader_cls_and_kwargs_are_used_for_every_file(tree: Path) -> None:
    documents = DirectoryLoader(
        str(tree), glob="**/*.md", loader_cls=TextLoader, loader_kwargs={"encoding": "utf-8"}
    ).load()
    assert documents[0].page_content == "# Intro\n\nWelcome.\n"


def test_loader_kwargs_without_loader_cls_are_rejected(tree: Path) -> None:
    with pytest.raises(ValidationError, match="suffix_loaders"):
        DirectoryLoader(str(tree), loader_kwargs={"encoding": "latin-1"})


def test_suffix_loaders_override_the_default_for_a_suffix(tree: Path) -> None:
    loader = DirectoryLoader(str(tree), glob="**/*.md", suffix_loaders={".MD": TextLoader})
    assert loader.load()[0].page_content.startswith("# Intro")


def test_binary_files_are_skipped_and_listed(tree: Path) -> None:
    binary = add_binary(tree)
    loader = DirectoryLoader(str(tree))
    names = sources(loader.load(), tree)
    assert "image.bin" not in names
    assert loader.skipped == [(str(binary), "binary file (NUL byte in the first 8192 bytes)")]
    assert loader.failed == []


def test_binary_files_are_skipped_even_with_an_explicit_text_loader(tree: Path) -> None:
    binary = add_binary(tree)
    loader = DirectoryLoader(str(tree), glob="*.bin", loader_cls=TextLoader)
    assert loader.load() == []
    assert [path for path, _ in loader.skipped] == [str(binary)]


def test_pdfs_are_not_mistaken_for_binary_text(tree: Path) -> None:
    pdf = tree / "guides" / "manual.pdf"
    pdf.write_bytes(pdf.read_bytes().replace(b"%PDF-1.4\n", b"%PDF-1.4\n%\x00\x00\n", 1))
    loader = DirectoryLoader(str(tree), glob="**/*.pdf", silent_errors=True)
    documents = loader.load()
    assert (loader.skipped, loader.failed) == ([], [])
    assert [d.page_content for d in documents] == ["Manual page one", "Manual page two"]


def test_undecodable_file_raises_by_default_naming_it(tree: Path) -> None:
    broken = add_undecodable(tree)
    with pytest.raises(ValidationError) as caught:
        DirectoryLoader(str(tree)).load()
    assert str(broken) in str(caught.value)


def test_silent_errors_continue_and_list_the_failure(
    tree: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = add_undecodable(tree)
    loader = DirectoryLoader(str(tree), silent_errors=True)
    with caplog.at_level(logging.WARNING):
        names = sources(loader.load(), tree)
    assert "readme.txt" in names and "broken.txt" not in names
    [(path, message)] = loader.failed
    assert path == str(broken)
    assert message.startswith("ValidationError: Could not decode")
    assert str(broken) in caplog.text


def test_silent_errors_with_threads_list_the_failure_too(tree: Path) -> None:
    broken = add_undecodable(tree)
    loader = DirectoryLoader(str(tree), silent_errors=True, use_multithreading=True)
    documents = loader.load()
    assert [path for path, _ in loader.failed] == [str(broken)]
    assert len(documents) == 11


def test_reports_are_reset_at_each_run(tree: Path) -> None:
    add_binary(tree)
    loader = DirectoryLoader(str(tree))
    loader.load()
    loader.load()
    assert len(loader.skipped) == 1


@needs_symlinks
def test_symlinked_files_are_loaded_under_the_link_name(tree: Path) -> None:
    os.symlink(tree / "readme.txt", tree / "link.txt")
    documents = DirectoryLoader(str(tree), glob="*.txt").load()
    assert sources(documents, tree) == ["latin1.txt", "link.txt", "readme.txt"]
    assert documents[1].page_content == "Top level readme.\n"


@needs_symlinks
def test_broken_symlinks_are_skipped_and_listed(tree: Path) -> None:
    os.symlink(tree / "gone.txt", tree / "dangling.txt")
    loader = DirectoryLoader(str(tree), glob="*.txt")
    assert sources(loader.load(), tree) == ["latin1.txt", "readme.txt"]
    assert loader.skipped == [(str(tree / "dangling.txt"), "broken symbolic link")]


@needs_symlinks
def test_a_symlink_cycle_does_not_loop(tree: Path) -> None:
    os.symlink(tree, tree / "guides" / "loop")
    documents = DirectoryLoader(str(tree), glob="**/*.md").load()
    assert sources(documents, tree) == ["guides/intro.md"]


def test_sample_size_loads_the_first_files_in_sorted_order(tree: Path) -> None:
    documents = DirectoryLoader(str(tree), glob="**/*.txt", sample_size=1).load()
    assert sources(documents, tree) == ["latin1.txt"]


def test_random_sample_is_reproducible_with_a_seed_and_sorted(tree: Path) -> None:
    def sample(seed: int) -> list[str]:
        loader = DirectoryLoader(str(tree), sample_size=3, randomize_sample=True, sample_seed=seed)
        return sorted(set(sources(loader.load(), tree)))

    assert sample(7) == sample(7)
    assert len(sample(7)) == 3
    assert any(sample(seed) != sample(7) for seed in range(8))


def test_missing_directory_raises_file_not_found_naming_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nowhere"):
        DirectoryLoader(str(tmp_path / "nowhere")).load()


def test_a_file_instead_of_a_directory_raises_value_error(tree: Path) -> None:
    with pytest.raises(ValueError, match="readme.txt"):
        DirectoryLoader(str(tree / "readme.txt")).load()


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"sample_size": -1}, "sample_size"),
        ({"glob": 5}, "glob"),
        ({"glob": []}, "glob"),
        ({"exclude": [1]}, "exclude"),
    ],
)
def test_bad_arguments_fail_at_once_naming_them(tree: Path, arguments: dict, named: str) -> None:
    with pytest.raises(ValidationError, match=named):
        DirectoryLoader(str(tree), **arguments)


def test_show_progress_draws_a_bar_on_stderr(tree: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("tqdm")
    DirectoryLoader(str(tree), glob="*.txt", show_progress=True).load()
    assert "2/2" in capsys.readouterr().err


def test_progress_counts_skipped_files_too(tree: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("tqdm")
    add_binary(tree)
    DirectoryLoader(str(tree), glob="*.*", show_progress=True).load()
    assert "3/3" in capsys.readouterr().err


def test_show_progress_without_tqdm_names_the_install_command(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(MissingDependencyError, match=r"pip install \"ragpath\[progress\]\""):
        DirectoryLoader(str(tree), show_progress=True)


def test_pdf_in_a_tree_without_pypdf_fails_with_the_install_command(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)
    loader = DirectoryLoader(str(tree), silent_errors=True)
    loader.load()
    [(path, message)] = loader.failed
    assert path.endswith("manual.pdf") and 'pip install "ragpath[pdf]"' in message


def test_a_failing_file_stops_the_run_with_its_path_noted(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("fine")
    (tmp_path / "b.txt").write_text("boom")

    class Exploding(BaseLoader):
        def __init__(self, path: str) -> None:
            self.path = path

        def lazy_load(self):
            if self.path.endswith("b.txt"):
                raise RuntimeError("parser crashed")
            yield Document("ok", {"source": self.path})

    loader = DirectoryLoader(str(tmp_path), loader_cls=Exploding)
    iterator = loader.lazy_load()
    assert next(iterator).page_content == "ok"
    with pytest.raises(RuntimeError, match="parser crashed") as caught:
        next(iterator)
    if sys.version_info >= (3, 11):
        assert any("b.txt" in note for note in caught.value.__notes__)


def test_loader_factories_may_be_partials(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes("é".encode("latin-1"))
    loader = DirectoryLoader(
        str(tmp_path), loader_cls=functools.partial(TextLoader, encoding="latin-1")
    )
    assert loader.load()[0].page_content == "é"
