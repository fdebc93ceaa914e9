"""A tiny ONNX cross-encoder the rerank tests build themselves (no downloaded weights).

It takes what fastembed feeds a cross-encoder (``input_ids``, ``attention_mask``,
``token_type_ids``, each int64 (batch, seq)) and returns ``logits`` (batch, 1):
the number of (query word, passage word) pairs that are the same vocabulary
word. Each word embeds as a one-hot row (special tokens as zero rows), the
query segment (type 0) and the passage segment (type 1) are summed separately,
and the score is their dot product, so ordering depends on both inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

WORDS = ["cat", "dog", "fish", "tax", "filing", "garden", "rain", "sun", "the", "a", "on", "is"]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _tokenizer() -> object:
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel

    vocab = {token: i for i, token in enumerate(SPECIALS + WORDS)}
    tok = Tokenizer(WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tok.add_special_tokens(SPECIALS)
    tok.enable_padding(pad_id=vocab["[PAD]"], pad_token="[PAD]")
    return tok


def _graph_model() -> object:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    vocab_size = len(SPECIALS) + len(WORDS)
    table = np.zeros((vocab_size, len(WORDS)), dtype=np.float32)
    for j in range(len(WORDS)):
        table[len(SPECIALS) + j, j] = 1.0  # special tokens (and unknown words) embed as zeros

    def seq_input(name: str) -> object:
        return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])

    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["emb"]),  # (b, s, V)
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["type_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["mask_f", "type_f"], ["w_passage"]),  # passage tokens
        helper.make_node("Sub", ["mask_f", "w_passage"], ["w_query"]),  # query tokens
        helper.make_node("Unsqueeze", ["w_query", "axis2"], ["w_query3"]),
        helper.make_node("Unsqueeze", ["w_passage", "axis2"], ["w_passage3"]),
        helper.make_node("Mul", ["emb", "w_query3"], ["emb_query"]),
        helper.make_node("Mul", ["emb", "w_passage3"], ["emb_passage"]),
        helper.make_node("ReduceSum", ["emb_query", "axis1"], ["bag_query"], keepdims=0),  # (b, V)
        helper.make_node("ReduceSum", ["emb_passage", "axis1"], ["bag_passage"], keepdims=0),
        helper.make_node("Mul", ["bag_query", "bag_passage"], ["overlap"]),
        helper.make_node("ReduceSum", ["overlap", "axis1"], ["logits"], keepdims=1),  # (b, 1)
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_cross_encoder",
        [seq_input("input_ids"), seq_input("attention_mask"), seq_input("token_type_ids")],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
        ],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ragcore-tests"
    )
    model.ir_version = 8  # readable by any onnxruntime of the last few years
    onnx.checker.check_model(model)
    return model


def build_tiny_cross_encoder(folder: Path, model_file: str = "model.onnx") -> Path:
    """Write model.onnx (or ``model_file``), tokenizer.json and tokenizer_config.json into ``folder``."""
    import onnx

    folder.mkdir(parents=True, exist_ok=True)
    (folder / model_file).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(_graph_model(), str(folder / model_file))
    _tokenizer().save(str(folder / "tokenizer.json"))  # type: ignore[attr-defined]
    config = {"model_max_length": 64, "pad_token": "[PAD]", "cls_token": "[CLS]", "sep_token": "[SEP]"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return folder
