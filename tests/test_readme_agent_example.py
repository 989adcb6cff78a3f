"""The README's agent-with-middleware example runs offline as written and cites the
passage its search found (README blocks are not in the docs site's block tests)."""

from pathlib import Path

from doc_blocks import ROOT, blocks, make_workspace, run_page


def test_the_readme_agent_with_middleware_pauses_for_approval_and_cites_its_source(tmp_path):
    [block] = [b for b in blocks(ROOT / "README.md") if "HumanInTheLoopMiddleware" in b.code]
    page = tmp_path / "page.md"
    page.write_text(f"# Agent\n\n```python\n{block.code}```\n", encoding="utf-8")
    namespace = run_page(page, make_workspace(tmp_path / "work"))
    assert namespace["paused"]["__interrupt__"][0].value["action_requests"][0]["name"] == "notify_maintainers"
    assert namespace["final"] == "You configure it in settings.toml [1]."
    assert [Path(p.metadata["source"]).name for p in namespace["sources"].cited(namespace["final"])] == ["setup.md"]
    assert [m.type for m in namespace["result"]["messages"]][-3:] == ["ai", "tool", "ai"]
