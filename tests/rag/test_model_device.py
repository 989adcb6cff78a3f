"""Where a local model runs (rag.embeddings._device) and its per-update settings."""

import pytest

from rag.embeddings import HashingEmbeddings, LocalEmbeddings
from rag.embeddings._device import CPU, CUDA, choose_device
from rag.errors import ValidationError
from rag.index.workers import InlineEmbedder, make_embedder, with_runtime


def test_auto_takes_a_gpu_when_onnxruntime_offers_cuda():
    assert choose_device("auto", [CUDA, CPU]).providers == (CUDA, CPU)


def test_auto_falls_back_to_the_cpu_without_cuda():
    assert choose_device("auto", [CPU]).device == "cpu"


def test_auto_keeps_int8_arithmetic_on_the_cpu():
    assert choose_device("auto", [CUDA, CPU], arithmetic="int8").device == "cpu"


def test_cuda_without_a_cuda_provider_names_what_to_install():
    with pytest.raises(ValidationError, match="onnxruntime-gpu"):
        choose_device("cuda", [CPU])


def test_cuda_with_int8_arithmetic_is_refused():
    with pytest.raises(ValidationError, match="int8"):
        choose_device("cuda", [CUDA, CPU], arithmetic="int8")


def test_an_unknown_device_is_refused_naming_it():
    with pytest.raises(ValidationError, match="'gpu'"):
        choose_device("gpu", [CPU])  # type: ignore[arg-type]


def test_on_a_machine_without_cuda_the_default_model_runs_on_the_cpu_one_text_per_call():
    model = LocalEmbeddings()
    assert "device='cpu'" in repr(model)
    assert model.batch_size == 1


def test_asking_for_cuda_where_there_is_none_fails_before_loading_anything():
    import onnxruntime

    if CUDA in onnxruntime.get_available_providers():
        pytest.skip("this machine's onnxruntime has CUDA")
    with pytest.raises(ValidationError, match="cuda"):
        LocalEmbeddings(device="cuda")


def test_runtime_settings_keep_the_model_and_its_vectors():
    model = LocalEmbeddings()
    other = model.with_runtime(batch_size=8, device="cpu")
    texts = ["short", "a somewhat longer text about databases", "x " * 300]
    assert other.model_id == model.model_id and other.batch_size == 8
    assert abs(other.embed_documents_array(texts) - model.embed_documents_array(texts)).max() < 1e-5


def test_an_update_embeds_with_the_batch_size_asked():
    embedder = make_embedder(LocalEmbeddings(), "local", batch_size=4)
    assert isinstance(embedder, InlineEmbedder) and embedder.embeddings.batch_size == 4


@pytest.mark.parametrize("settings", [{"batch_size": 0}, {"batch_size": -3}, {"device": "tpu"}])
def test_bad_runtime_settings_are_refused_showing_the_value(settings):
    with pytest.raises(ValidationError, match=repr(next(iter(settings.values())))):
        make_embedder(LocalEmbeddings(), "local", **settings)


def test_runtime_settings_for_a_model_without_them_are_refused_naming_the_model():
    with pytest.raises(ValidationError, match="'hashing'"):
        with_runtime(HashingEmbeddings(dim=8), "hashing", device="cpu")


def test_threads_alone_leave_a_model_without_threads_as_it_is():
    model = HashingEmbeddings(dim=8)
    assert with_runtime(model, "hashing", threads=2) is model


def test_rag_index_with_batch_size_zero_is_refused_by_the_command_line(tmp_path, capsys):
    from rag.cli.app import main

    with pytest.raises(SystemExit) as exit_info:
        main(["index", str(tmp_path), "--index", str(tmp_path / "ix"), "--batch-size", "0"])
    assert exit_info.value.code == 2
    assert "--batch-size: expected a positive integer, got '0'" in capsys.readouterr().err
