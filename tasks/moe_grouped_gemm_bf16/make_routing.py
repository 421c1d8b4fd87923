#!/usr/bin/env python3
"""Writes routing.safetensors: the expert choices of the task's 4096 tokens (I32 [4096, 8]).

Routing as an MoE layer does it: a softmax over random router logits (seeded, N(0, 1), 128
experts) and its top 8, so experts get uneven token counts. Every 97th token then sends its
second slot to the expert of its first: one token routed twice to one expert, a case a
deduplicating permutation gets wrong. Run it to re-create the file (needs PyTorch).
"""
import json
import pathlib
import struct

import torch

TOKENS, EXPERTS, TOP_K, SEED = 4096, 128, 8, 20261203

gen = torch.Generator().manual_seed(SEED)
logits = torch.randn(TOKENS, EXPERTS, generator=gen)
idx = torch.softmax(logits, dim=-1).topk(TOP_K, dim=-1).indices.to(torch.int32)
idx[::97, 1] = idx[::97, 0]
data = struct.pack(f"<{idx.numel()}i", *idx.flatten().tolist())
header = json.dumps({"topk_idx": {"dtype": "I32", "shape": [TOKENS, TOP_K], "data_offsets": [0, len(data)]}}).encode()
header += b" " * (-len(header) % 8)
out = pathlib.Path(__file__).with_name("routing.safetensors")
out.write_bytes(struct.pack("<Q", len(header)) + header + data)
counts = torch.bincount(idx.flatten().long(), minlength=EXPERTS)
print(f"{out}: {TOKENS} tokens x top-{TOP_K}; tokens per expert min {counts.min().item()} max {counts.max().item()}; "
      f"{len(range(0, TOKENS, 97))} tokens send two slots to one expert")
