"""Additive scores block by block: the memory-bounded evaluation behind
:func:`attnlib.additive_scores` (the ``(batch, n_queries, n_keys, h)`` tensor of tanh
features is never built whole). Pure tensor maths, no argument checks: the caller
(:func:`attnlib.scoring._additive_scores`) has checked them.
"""

from __future__ import annotations

import torch
from torch import Tensor


def _additive_block(q_proj: Tensor, k_proj: Tensor, w_v: Tensor) -> Tensor:
    """w_vᵀ tanh(q + k) for one block: q_proj (batch, bq, h), k_proj (batch, bk, h)."""
    features = (q_proj.unsqueeze(2) + k_proj.unsqueeze(1)).tanh_()  # (batch, bq, bk, h)
    return torch.matmul(features, w_v)  # (batch, bq, bk)


def _additive_blocks_no_grad(
    q_proj: Tensor, k_proj: Tensor, w_v: Tensor, block_q: int, block_k: int
) -> Tensor:
    """Blocked scores without autograd: one reused buffer, in-place tanh, no concatenation."""
    batch, n_queries, h = q_proj.shape
    n_keys = k_proj.shape[1]
    scores = q_proj.new_empty(batch, n_queries, n_keys)  # (batch, n_queries, n_keys)
    buffer = q_proj.new_empty(batch * block_q * block_k * h)  # flat, reused by every block
    for i in range(0, n_queries, block_q):
        bq = min(block_q, n_queries - i)
        for j in range(0, n_keys, block_k):
            bk = min(block_k, n_keys - j)
            features = buffer[: batch * bq * bk * h].view(batch, bq, bk, h)  # (batch, bq, bk, h)
            q_blk = q_proj[:, i : i + bq].unsqueeze(2)  # (batch, bq, 1, h)
            k_blk = k_proj[:, j : j + bk].unsqueeze(1)  # (batch, 1, bk, h)
            torch.add(q_blk, k_blk, out=features)  # (batch, bq, bk, h)
            features.tanh_()
            block = torch.mv(features.view(-1, h), w_v)  # (batch * bq * bk,)
            scores[:, i : i + bq, j : j + bk] = block.view(batch, bq, bk)  # (batch, bq, bk)
    return scores


class _BlockedAdditive(torch.autograd.Function):
    """Blocked additive scores whose backward recomputes each block's tanh.

    Forward keeps only the projections (``(batch, n, h)``, small) and reuses one
    block-sized buffer; backward reuses one buffer too and accumulates the gradients block
    by block. Unlike per-block ``torch.utils.checkpoint`` (which allocates fresh block
    tensors, and whose freed memory the default CPU allocator keeps), peak memory stays
    one block plus the projections in training as well. Differentiable once (no
    double backward).
    """

    @staticmethod
    def forward(ctx, q_proj, k_proj, w_v, block_q, block_k):
        ctx.save_for_backward(q_proj, k_proj, w_v)
        ctx.blocks = (block_q, block_k)
        return _additive_blocks_no_grad(q_proj, k_proj, w_v, block_q, block_k)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        q_proj, k_proj, w_v = ctx.saved_tensors
        block_q, block_k = ctx.blocks
        batch, n_queries, h = q_proj.shape
        n_keys = k_proj.shape[1]
        grad = grad.contiguous()  # (batch, n_queries, n_keys)
        grad_q = torch.zeros_like(q_proj)  # (batch, n_queries, h)
        grad_k = torch.zeros_like(k_proj)  # (batch, n_keys, h)
        grad_w = torch.zeros_like(w_v)  # (h,)
        buffer = q_proj.new_empty(batch * block_q * block_k * h)  # reused by every block
        for i in range(0, n_queries, block_q):
            bq = min(block_q, n_queries - i)
            for j in range(0, n_keys, block_k):
                bk = min(block_k, n_keys - j)
                t = buffer[: batch * bq * bk * h].view(batch, bq, bk, h)  # (batch, bq, bk, h)
                torch.add(
                    q_proj[:, i : i + bq].unsqueeze(2),  # (batch, bq, 1, h)
                    k_proj[:, j : j + bk].unsqueeze(1),
                    out=t,
                )  # (batch, 1, bk, h)
                t.tanh_()
                g = grad[:, i : i + bq, j : j + bk]  # (batch, bq, bk)
                # d score / d w_v = tanh(...): sum over every (b, i, j) of g * t
                grad_w += torch.mv(t.reshape(-1, h).t(), g.reshape(-1))  # (h,)
                # d score / d pre-activation = w_v * (1 - t^2), times g: in place into t
                t.mul_(t).neg_().add_(1.0).mul_(w_v).mul_(g.unsqueeze(-1))  # (batch, bq, bk, h)
                grad_q[:, i : i + bq] += t.sum(dim=2)  # (batch, bq, h)
                grad_k[:, j : j + bk] += t.sum(dim=1)  # (batch, bk, h)
        return grad_q, grad_k, grad_w, None, None
