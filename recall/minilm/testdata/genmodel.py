#!/usr/bin/python3
"""Test-model generator and independent reference for recall/minilm.

gen: writes a BERT-shaped ONNX model with seeded random weights (the same
inputs and output as a standard sentence-transformers export) plus a
config.json describing its shape, and copies the tokenizer files.

quantize: rewrites a model the way dynamic int8 quantization does: every
MatMul by a weight becomes DynamicQuantizeLinear on the activations,
MatMulInteger against the weight quantized per tensor (signed int8,
symmetric, as upstream's avx512_vnni export, or unsigned uint8 with a zero
point, as its avx2 export), and a float rescale.

ref: reads sentences as a JSON list on stdin and prints, as JSON, their
token ids (from a WordPiece tokenizer written here over vocab.txt) and their
sentence vectors (a numpy forward pass over the model's weights, mean pooling
over the attention mask, L2 normalisation). It never runs the ONNX graph, so
it checks the graph and the Go code that runs it. (onnx.reference's
ReferenceEvaluator would also do, but Debian 12's python3-onnx 1.12 predates
it.)

Needs only python3-onnx and python3-numpy.
"""
import argparse
import json
import os
import shutil
import sys
import unicodedata

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TOKENIZER_FILES = ["tokenizer.json", "vocab.txt", "tokenizer_config.json",
                   "special_tokens_map.json"]
OPSET = 14


def build(vocab, hidden, layers, heads, inter, max_pos, seed):
    rng = np.random.default_rng(seed)
    inits = []
    nodes = []

    def w(name, shape, std):
        a = (rng.standard_normal(shape) * std).astype(np.float32)
        inits.append(numpy_helper.from_array(a, name))
        return name

    def ln_params(prefix):
        g = (1.0 + rng.standard_normal(hidden) * 0.1).astype(np.float32)
        b = (rng.standard_normal(hidden) * 0.1).astype(np.float32)
        inits.append(numpy_helper.from_array(g, prefix + ".weight"))
        inits.append(numpy_helper.from_array(b, prefix + ".bias"))
        return prefix + ".weight", prefix + ".bias"

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(op, ins, outs, **attrs):
        nodes.append(helper.make_node(op, ins, outs, name=outs[0] + "_" + op, **attrs))
        return outs[0]

    def layer_norm(x, prefix):
        # Decomposed as in opset-14 exports (no LayerNormalization op).
        g, b = ln_params(prefix)
        mean = node("ReduceMean", [x], [prefix + ".mean"], axes=[-1], keepdims=1)
        d = node("Sub", [x, mean], [prefix + ".d"])
        sq = node("Pow", [d, "c.two"], [prefix + ".sq"])
        var = node("ReduceMean", [sq], [prefix + ".var"], axes=[-1], keepdims=1)
        ve = node("Add", [var, "c.eps"], [prefix + ".ve"])
        sd = node("Sqrt", [ve], [prefix + ".sd"])
        n = node("Div", [d, sd], [prefix + ".n"])
        m = node("Mul", [n, g], [prefix + ".m"])
        return node("Add", [m, b], [prefix + ".out"])

    def linear(x, prefix, nin, nout, std=0.1):
        wt = w(prefix + ".weight", (nin, nout), std)
        bs = w(prefix + ".bias", (nout,), 0.05)
        mm = node("MatMul", [x, wt], [prefix + ".mm"])
        return node("Add", [mm, bs], [prefix + ".out"])

    const("c.two", np.array(2.0, dtype=np.float32))
    const("c.eps", np.array(1e-12, dtype=np.float32))
    const("c.one", np.array(1.0, dtype=np.float32))
    const("c.half", np.array(0.5, dtype=np.float32))
    const("c.sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    const("c.min", np.array(np.finfo(np.float32).min, dtype=np.float32))
    const("c.scale", np.array(np.sqrt(hidden // heads), dtype=np.float32))
    const("c.i0", np.array([0], dtype=np.int64))
    const("c.i1", np.array([1], dtype=np.int64))
    const("c.heads", np.array([heads, hidden // heads], dtype=np.int64))
    const("c.hidden", np.array([hidden], dtype=np.int64))
    const("position_ids", np.arange(max_pos, dtype=np.int64).reshape(1, max_pos))

    # Embeddings.
    node("Shape", ["input_ids"], ["shape"])
    node("Gather", ["shape", "c.i0"], ["batch"], axis=0)
    node("Gather", ["shape", "c.i1"], ["seq"], axis=0)
    node("Slice", ["position_ids", "c.i0", "seq", "c.i1"], ["pos_ids"])
    we = w("embeddings.word_embeddings.weight", (vocab, hidden), 1.0)
    pe = w("embeddings.position_embeddings.weight", (max_pos, hidden), 0.5)
    te = w("embeddings.token_type_embeddings.weight", (2, hidden), 0.5)
    node("Gather", [we, "input_ids"], ["emb.word"], axis=0)
    node("Gather", [pe, "pos_ids"], ["emb.pos"], axis=0)
    node("Gather", [te, "token_type_ids"], ["emb.type"], axis=0)
    node("Add", ["emb.word", "emb.type"], ["emb.wt"])
    node("Add", ["emb.wt", "emb.pos"], ["emb.sum"])
    h = layer_norm("emb.sum", "embeddings.LayerNorm")

    # Extended attention mask: (1 - mask) * float32 min, shape [b, 1, 1, s].
    node("Unsqueeze", ["attention_mask", "c.i1"], ["mask.u1"])
    node("Unsqueeze", ["mask.u1", "c.i1"], ["mask.u2"])
    node("Cast", ["mask.u2"], ["mask.f"], to=TensorProto.FLOAT)
    node("Sub", ["c.one", "mask.f"], ["mask.inv"])
    node("Mul", ["mask.inv", "c.min"], ["mask.add"])

    node("Concat", ["batch", "seq", "c.heads"], ["shape.split"], axis=0)
    node("Concat", ["batch", "seq", "c.hidden"], ["shape.merge"], axis=0)
    hd = hidden // heads

    for i in range(layers):
        p = "encoder.layer.%d" % i
        qkv = []
        for part in ("query", "key", "value"):
            x = linear(h, p + ".attention.self." + part, hidden, hidden)
            r = node("Reshape", [x, "shape.split"], [p + "." + part + ".r"])
            qkv.append(r)
        q = node("Transpose", [qkv[0]], [p + ".q.t"], perm=[0, 2, 1, 3])
        k = node("Transpose", [qkv[1]], [p + ".k.t"], perm=[0, 2, 3, 1])
        v = node("Transpose", [qkv[2]], [p + ".v.t"], perm=[0, 2, 1, 3])
        s = node("MatMul", [q, k], [p + ".scores"])
        s = node("Div", [s, "c.scale"], [p + ".scaled"])
        s = node("Add", [s, "mask.add"], [p + ".masked"])
        pr = node("Softmax", [s], [p + ".probs"], axis=-1)
        ctx = node("MatMul", [pr, v], [p + ".ctx"])
        ctx = node("Transpose", [ctx], [p + ".ctx.t"], perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "shape.merge"], [p + ".ctx.r"])
        o = linear(ctx, p + ".attention.output.dense", hidden, hidden)
        o = node("Add", [o, h], [p + ".attn.res"])
        h1 = layer_norm(o, p + ".attention.output.LayerNorm")
        f = linear(h1, p + ".intermediate.dense", hidden, inter)
        # Exact gelu: x * 0.5 * (1 + erf(x / sqrt 2)).
        e = node("Div", [f, "c.sqrt2"], [p + ".gelu.d"])
        e = node("Erf", [e], [p + ".gelu.erf"])
        e = node("Add", [e, "c.one"], [p + ".gelu.a"])
        e = node("Mul", [f, e], [p + ".gelu.m"])
        e = node("Mul", [e, "c.half"], [p + ".gelu.out"])
        f2 = linear(e, p + ".output.dense", inter, hidden)
        f2 = node("Add", [f2, h1], [p + ".ffn.res"])
        h = layer_norm(f2, p + ".output.LayerNorm")

    node("Identity", [h], ["last_hidden_state"])
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch_size", "sequence_length"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    outs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                          ["batch_size", "sequence_length", hidden])]
    graph = helper.make_graph(nodes, "bert", ins, outs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="tmem-genmodel")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def cmd_gen(a):
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.tokenizer, "vocab.txt"), encoding="utf-8") as f:
        vocab = sum(1 for _ in f)
    model = build(vocab, a.hidden, a.layers, a.heads, a.intermediate, a.max_pos, a.seed)
    tmp = os.path.join(a.out, "model.onnx.tmp")
    onnx.save(model, tmp)
    os.replace(tmp, os.path.join(a.out, "model.onnx"))
    for name in TOKENIZER_FILES:
        shutil.copyfile(os.path.join(a.tokenizer, name), os.path.join(a.out, name))
    cfg = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": a.hidden, "num_hidden_layers": a.layers,
        "num_attention_heads": a.heads, "intermediate_size": a.intermediate,
        "max_position_embeddings": a.max_pos, "vocab_size": vocab,
        "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0,
        "position_embedding_type": "absolute", "_generator_seed": a.seed,
    }
    with open(os.path.join(a.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")


def quantize_weight(wf, signed):
    """Per-tensor weight quantization: returns (q, scale, zero point)."""
    if signed:
        scale = max(float(np.abs(wf).max()) / 127.0, 1e-12)
        q = np.clip(np.round(wf / scale), -127, 127).astype(np.int8)
        return q, scale, np.array(0, dtype=np.int8)
    lo, hi = min(float(wf.min()), 0.0), max(float(wf.max()), 0.0)
    scale = max((hi - lo) / 255.0, 1e-12)
    zp = int(np.clip(np.round(-lo / scale), 0, 255))
    q = np.clip(np.round(wf / scale) + zp, 0, 255).astype(np.uint8)
    return q, scale, np.array(zp, dtype=np.uint8)


def cmd_quantize(a):
    model = onnx.load(a.model)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    quantized = set()
    nodes = []
    for n in g.node:
        if n.op_type != "MatMul" or n.input[1] not in inits:
            nodes.append(n)
            continue
        x, wname, out = n.input[0], n.input[1], n.output[0]
        q, scale, zp = quantize_weight(numpy_helper.to_array(inits[wname]), a.weights == "int8")
        quantized.add(wname)
        g.initializer.extend([
            numpy_helper.from_array(q, wname + ".q"),
            numpy_helper.from_array(np.array(scale, dtype=np.float32), wname + ".scale"),
            numpy_helper.from_array(zp, wname + ".zp"),
        ])
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [x], [out + ".xq", out + ".xs", out + ".xz"], name=out + "_dql"),
            helper.make_node("MatMulInteger", [out + ".xq", wname + ".q", out + ".xz", wname + ".zp"], [out + ".i32"], name=out + "_mmi"),
            helper.make_node("Cast", [out + ".i32"], [out + ".f"], to=TensorProto.FLOAT, name=out + "_cast"),
            helper.make_node("Mul", [out + ".xs", wname + ".scale"], [out + ".s"], name=out + "_scale"),
            helper.make_node("Mul", [out + ".f", out + ".s"], [out], name=out + "_rescale"),
        ]
    keep = [t for t in g.initializer if t.name not in quantized]
    del g.initializer[:]
    g.initializer.extend(keep)
    del g.node[:]
    g.node.extend(nodes)
    onnx.checker.check_model(model)
    tmp = a.out + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, a.out)


# ---- independent BERT uncased WordPiece ----

def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def is_space(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def basic_tokens(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        if is_space(ch):
            out.append(" ")
        elif is_cjk(cp):
            out.append(" " + ch + " ")
        else:
            out.append(ch)
    text = "".join(out).lower()
    text = "".join(c for c in unicodedata.normalize("NFD", text)
                   if unicodedata.category(c) != "Mn")
    words = []
    for word in text.split():
        cur = ""
        for ch in word:
            if is_punct(ch):
                if cur:
                    words.append(cur)
                    cur = ""
                words.append(ch)
            else:
                cur += ch
        if cur:
            words.append(cur)
    return words


def wordpiece(word, vocab):
    if len(word) > 100:
        return [vocab["[UNK]"]]
    ids = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end]
            if start > 0:
                piece = "##" + piece
            if piece in vocab:
                found = vocab[piece]
                break
            end -= 1
        if found is None:
            return [vocab["[UNK]"]]
        ids.append(found)
        start = end
    return ids


def encode(text, vocab, max_len):
    ids = []
    for word in basic_tokens(text):
        ids.extend(wordpiece(word, vocab))
    ids = ids[: max_len - 2]
    return [vocab["[CLS]"]] + ids + [vocab["[SEP]"]]


# ---- numpy forward pass, float64 ----

def forward(W, ids, heads):
    x = np.asarray(ids, dtype=np.int64)
    n = len(x)
    h = (W["embeddings.word_embeddings.weight"][x]
         + W["embeddings.position_embeddings.weight"][:n]
         + W["embeddings.token_type_embeddings.weight"][np.zeros(n, dtype=np.int64)])

    def ln(v, p):
        mu = v.mean(-1, keepdims=True)
        d = v - mu
        return d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-12) * W[p + ".weight"] + W[p + ".bias"]

    def lin(v, p):
        return v @ W[p + ".weight"] + W[p + ".bias"]

    h = ln(h, "embeddings.LayerNorm")
    hidden = h.shape[1]
    hd = hidden // heads
    i = 0
    while "encoder.layer.%d.attention.self.query.weight" % i in W:
        p = "encoder.layer.%d" % i
        q = lin(h, p + ".attention.self.query").reshape(n, heads, hd).transpose(1, 0, 2)
        k = lin(h, p + ".attention.self.key").reshape(n, heads, hd).transpose(1, 0, 2)
        v = lin(h, p + ".attention.self.value").reshape(n, heads, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        c = (s @ v).transpose(1, 0, 2).reshape(n, hidden)
        h1 = ln(lin(c, p + ".attention.output.dense") + h, p + ".attention.output.LayerNorm")
        f = lin(h1, p + ".intermediate.dense")
        f = 0.5 * f * (1.0 + erf(f / np.sqrt(2.0)))
        h = ln(lin(f, p + ".output.dense") + h1, p + ".output.LayerNorm")
        i += 1
    v = h.mean(0)
    return v / max(np.linalg.norm(v), 1e-12)


def erf(x):
    # numpy has no erf; math.erf per element is exact enough and fast at test sizes.
    import math
    return np.vectorize(math.erf)(x)


def cmd_ref(a):
    vocab = {}
    with open(os.path.join(a.model, "vocab.txt"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            vocab[line.rstrip("\n")] = i
    with open(os.path.join(a.model, "config.json"), encoding="utf-8") as f:
        heads = json.load(f)["num_attention_heads"]
    m = onnx.load(os.path.join(a.model, "model.onnx"))
    W = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
    texts = json.load(sys.stdin)
    out = {"ids": [], "vectors": []}
    for t in texts:
        ids = encode(t, vocab, a.max_len)
        out["ids"].append(ids)
        if not a.ids_only:
            out["vectors"].append([float(v) for v in forward(W, ids, heads)])
    json.dump(out, sys.stdout)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--out", required=True)
    g.add_argument("--tokenizer", required=True, help="folder with vocab.txt and tokenizer.json")
    g.add_argument("--hidden", type=int, default=32)
    g.add_argument("--layers", type=int, default=2)
    g.add_argument("--heads", type=int, default=4)
    g.add_argument("--intermediate", type=int, default=64)
    g.add_argument("--max-pos", type=int, default=512)
    g.add_argument("--seed", type=int, default=1)
    q = sub.add_parser("quantize")
    q.add_argument("--model", required=True, help="fp32 model.onnx")
    q.add_argument("--out", required=True)
    q.add_argument("--weights", choices=["int8", "uint8"], default="int8")
    r = sub.add_parser("ref")
    r.add_argument("--model", required=True)
    r.add_argument("--max-len", type=int, default=256)
    r.add_argument("--ids-only", action="store_true")
    a = ap.parse_args()
    if a.cmd == "gen":
        cmd_gen(a)
    elif a.cmd == "quantize":
        cmd_quantize(a)
    else:
        cmd_ref(a)


if __name__ == "__main__":
    main()
