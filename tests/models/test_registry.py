import sys

import pytest

from lvlmbench.models import RegistryError, load_chat_model, parse_spec
from lvlmbench.models.openai import OpenAIChatModel


def test_spec_with_options_and_slashes_in_name():
    spec = parse_spec("hf/HuggingFaceTB/SmolVLM-256M?device=cpu&batch_size=4")
    assert (spec.provider, spec.name) == ("hf", "HuggingFaceTB/SmolVLM-256M")
    assert spec.options == {"device": "cpu", "batch_size": "4"}


@pytest.mark.parametrize("bad", ["gpt-4o", "openai/", "/model", "nosuch/model"])
def test_malformed_specs_name_the_problem(bad):
    with pytest.raises(RegistryError, match="openai"):
        parse_spec(bad)


def test_keyword_options_win_over_spec_options():
    model = load_chat_model("openai/m?base_url=http://a/v1", base_url="http://b/v1")
    assert isinstance(model, OpenAIChatModel) and model.base_url == "http://b/v1"


def test_base_url_from_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env-host:8000/v1/")
    model = load_chat_model("openai/m")
    assert isinstance(model, OpenAIChatModel) and model.base_url == "http://env-host:8000/v1"


def test_missing_extra_gives_install_hint(monkeypatch):
    # Simulate an install without torch: the hf provider's import must fail with a hint.
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.delitem(sys.modules, "lvlmbench.models.hf", raising=False)
    with pytest.raises(RegistryError, match=r"pip install 'lvlmbench\[hf\]'"):
        load_chat_model("hf/some/model")
