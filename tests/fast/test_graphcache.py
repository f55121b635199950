"""What capture keeps by the FX graph key (inspector.probe.graphcache): the facts of a graph are found again only for
the same user code and the same inspector; an edited file, another frame, another graph text or another inspector
finds none (no stale stack replayed)."""

from inspector.probe.graphcache import GraphFacts

GRAPH = "class GraphModule:\n    # File: {path}:6 in score, code: return (torch.sin(x) * 2 + 1).sum(1)\n"


def test_facts_are_found_again_only_for_the_same_code(tmp_path):
    source = tmp_path / "prog.py"
    source.write_text("import torch\n")
    graph = {"fx_graph": GRAPH.format(path=source), "user_stack": [{"filename": str(source), "name": "score"}],
             "nests": [{"code": ["x"]}], "metrics": {"entire_frame_compile_time_s": 1.5}, "fx_graph_cache": "miss",
             "output_code": ["not kept"]}
    kept = GraphFacts(str(tmp_path / "kept"))
    kept.keep("key", kept.fingerprint(graph), graph)
    again = GraphFacts(str(tmp_path / "kept"))  # a later run
    assert again.load("key", again.fingerprint(graph)) == {k: graph[k] for k in ("nests", "metrics", "fx_graph_cache")}
    assert not again.has("other key", again.fingerprint(graph))
    assert not again.has("key", again.fingerprint(dict(graph, user_stack=[{"filename": str(source), "name": "g"}])))
    assert not again.has("key", again.fingerprint(dict(graph, fx_graph=graph["fx_graph"].replace(":6", ":7"))))
    other = GraphFacts(str(tmp_path / "kept"), code="another inspector's probe")  # upgraded, or edited
    assert not other.has("key", other.fingerprint(graph))
    source.write_text("# edited\nimport torch\n")
    edited = GraphFacts(str(tmp_path / "kept"))
    assert not edited.has("key", edited.fingerprint(graph))
