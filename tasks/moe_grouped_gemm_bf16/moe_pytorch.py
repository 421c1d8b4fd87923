"""The MoE expert projection in PyTorch, in KernelBench's problem format: the PyTorch baselines of
the moe_grouped_gemm_bf16 tasks (the moe_grouped_gemm_bf16_torch_* folders take it as their live
reference; kernelpro times it eager and under torch.compile beside the candidate).

forward(x, topk_idx, w, grouped): slots (t, k) sorted by expert (a stable argsort), x's rows
gathered in that order, then either one torch._grouped_mm over the experts' row ranges
(grouped = 1; PyTorch 2.8+ on sm_90) or one matmul per expert (grouped = 0), and the rows
scattered back to y[t, k].
"""
import torch
import torch.nn as nn

TOKENS, HIDDEN, FFN, EXPERTS, TOP_K = 4096, 2048, 768, 128, 8


class Model(nn.Module):
    def forward(self, x: torch.Tensor, topk_idx: torch.Tensor, w: torch.Tensor, grouped: float) -> torch.Tensor:
        tokens, top_k = topk_idx.shape
        experts, _, ffn = w.shape
        flat = topk_idx.reshape(-1).long()
        order = torch.argsort(flat, stable=True)
        rows = x[order // top_k]
        counts = torch.bincount(flat, minlength=experts)
        if grouped and hasattr(torch, "_grouped_mm"):
            out = torch._grouped_mm(rows, w, offs=torch.cumsum(counts, 0).to(torch.int32))
        else:
            out = torch.empty(rows.shape[0], ffn, device=x.device, dtype=x.dtype)
            start = 0
            for e, n in enumerate(counts.tolist()):
                out[start:start + n] = rows[start:start + n] @ w[e]
                start += n
        y = torch.empty_like(out)
        y[order] = out
        return y.view(tokens, top_k, ffn)


def get_inputs():
    x = torch.randn(TOKENS, HIDDEN, dtype=torch.bfloat16)
    logits = torch.randn(TOKENS, EXPERTS)
    topk_idx = torch.softmax(logits, dim=-1).topk(TOP_K, dim=-1).indices.to(torch.int32)
    w = (torch.randn(EXPERTS, HIDDEN, FFN) * HIDDEN ** -0.5).to(torch.bfloat16)
    return [x, topk_idx, w, 1.0]


def get_init_inputs():
    return []
