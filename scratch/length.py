"""Prototype: the length experiment (number words -> digits)."""
from __future__ import annotations
import time
import torch
from torch import Tensor, nn
from attnlib.attention import AdditiveAttention
from attnlib.masking import masked_softmax

WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
PAD, BOS, EOS = 0, 1, 2
SRC = ["<pad>", " "] + sorted(set("".join(WORDS)))
TGT = ["<pad>", "<bos>", "<eos>"] + list("0123456789")
SI = {c: i for i, c in enumerate(SRC)}
TI = {c: i for i, c in enumerate(TGT)}


def random_numbers(n, lo, hi, g):
    ks = torch.randint(lo, hi + 1, (n,), generator=g).tolist()
    return ["".join(str(d) for d in torch.randint(0, 10, (k,), generator=g).tolist()) for k in ks]


def spell(num):
    return " ".join(WORDS[int(c)] for c in num)


def enc_src(texts):
    n = max(len(t) for t in texts)
    ids = torch.full((len(texts), n), PAD, dtype=torch.long)
    for b, t in enumerate(texts):
        ids[b, :len(t)] = torch.tensor([SI[c] for c in t])
    return ids, torch.tensor([len(t) for t in texts])


def enc_tgt(texts):
    n = max(len(t) for t in texts) + 1
    ids = torch.full((len(texts), n), PAD, dtype=torch.long)
    for b, t in enumerate(texts):
        ids[b, :len(t) + 1] = torch.tensor([TI[c] for c in t] + [EOS])
    return ids


class Encoder(nn.Module):
    def __init__(self, V, e, h):
        super().__init__()
        self.embedding = nn.Embedding(V, e, padding_idx=PAD)
        self.rnn = nn.GRU(e, h // 2, 1, batch_first=True, bidirectional=True)

    def forward(self, src, lens):
        packed = nn.utils.rnn.pack_padded_sequence(self.embedding(src), lens, batch_first=True, enforce_sorted=False)
        out, hidden = self.rnn(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        hidden = hidden.view(1, 2, *hidden.shape[1:])
        return states, torch.cat([hidden[:, 0], hidden[:, 1]], dim=-1)


class Uniform(nn.Module):
    """Query-blind: uniform weights over the valid keys."""
    def forward(self, q, k, v, lens):
        scores = torch.zeros(q.shape[0], q.shape[1], k.shape[1], dtype=k.dtype)
        self.attention_weights = masked_softmax(scores, lens)
        return self.attention_weights @ v


class Decoder(nn.Module):
    def __init__(self, V, e, h, attention):
        super().__init__()
        self.attention = attention
        self.embedding = nn.Embedding(V, e)
        self.rnn = nn.GRU(e + h, h, 1, batch_first=True)
        self.dense = nn.Linear(h, V)

    def step(self, token, hidden, states, lens, context=None):
        if self.attention is not None:
            query = hidden[-1].unsqueeze(1)
            context = self.attention(query, states, states, lens)
        x = torch.cat([self.embedding(token).unsqueeze(1), context], dim=-1)
        out, hidden = self.rnn(x, hidden)
        w = self.attention.attention_weights if self.attention is not None else None
        return self.dense(out.squeeze(1)), hidden, w


class Model(nn.Module):
    def __init__(self, kind="additive", e=16, h=32):
        super().__init__()
        self.kind = kind
        self.encoder = Encoder(len(SRC), e, h)
        att = {"additive": lambda: AdditiveAttention(h, 0.0), "uniform": Uniform, "none": lambda: None}[kind]()
        self.decoder = Decoder(len(TGT), e, h, att)

    def forward(self, src, lens, tgt=None, max_len=None):
        states, hidden = self.encoder(src, lens)
        context = hidden[-1].unsqueeze(1) if self.kind == "none" else None
        B = src.shape[0]
        token = torch.full((B,), BOS, dtype=torch.long)
        n = tgt.shape[1] if tgt is not None else max_len
        logits, ws = [], []
        for t in range(n):
            out, hidden, w = self.decoder.step(token, hidden, states, lens, context)
            logits.append(out); ws.append(w)
            token = tgt[:, t] if tgt is not None else out.argmax(-1)
        w = torch.cat(ws, 1) if ws[0] is not None else None
        return torch.stack(logits, 1), w


def train(model, nums, steps, batch=64, lr=0.01, g=None, bucket=True):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    by_len = {}
    for s in nums:
        by_len.setdefault(len(s), []).append(s)
    keys = sorted(by_len)
    losses = []
    t0 = time.process_time()
    for step in range(steps):
        if bucket:
            k = keys[torch.randint(0, len(keys), (1,), generator=g).item()]
            pool = by_len[k]
            idx = torch.randint(0, len(pool), (batch,), generator=g).tolist()
            bn = [pool[i] for i in idx]
        else:
            idx = torch.randint(0, len(nums), (batch,), generator=g).tolist()
            bn = [nums[i] for i in idx]
        src, lens = enc_src([spell(x) for x in bn])
        tgt = enc_tgt(bn)
        model.train()
        logits, _ = model(src, lens, tgt)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=PAD)
        opt.zero_grad(); loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return losses, time.process_time() - t0


def decode(model, nums, max_len=None):
    src, lens = enc_src([spell(x) for x in nums])
    max_len = max_len or max(len(x) for x in nums) + 3
    model.eval()
    with torch.no_grad():
        logits, w = model(src, lens, max_len=max_len)
    out = []
    for row in logits.argmax(-1).tolist():
        s = ""
        for i in row:
            if i == EOS:
                break
            s += TGT[i] if i > EOS else "?"
        out.append(s)
    return out, w


def scores(model, nums):
    pred, _ = decode(model, nums)
    exact = sum(p == t for p, t in zip(pred, nums)) / len(nums)
    char = sum(sum(a == b for a, b in zip(p, t)) for p, t in zip(pred, nums)) / sum(len(t) for t in nums)
    return exact, char
