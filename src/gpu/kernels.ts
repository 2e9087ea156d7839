// The one list of every WGSL kernel. A kernel is a file in shaders/, its bindings in order
// (outputs first, then inputs, then the uniform), and an entry point. Each family section is
// owned by the TypeScript twin named in its header; keep the sections in that order.
//
// Dimension letters used across shaders and twins:
//   B batch, T sequence length, C channels (d_model), V vocabulary, L layers,
//   NH heads, HS head size (C / NH), G group size, R LoRA rank, M/K/N matmul dims.

export type BindingKind = 'storage' | 'read' | 'uniform';

export interface KernelDecl {
  file: string;
  entry?: string;
  bindings: readonly BindingKind[];
}

export const KERNELS = {
  // --- elementwise (src/gpu/ops/elementwise.ts)
  residual_forward: { file: 'residual_forward.wgsl', bindings: ['storage', 'read', 'read', 'uniform'] },

  // --- matmul (src/gpu/ops/matmul.ts)

  // --- layernorm, gelu, encoder (src/gpu/ops/layers.ts)

  // --- attention (src/gpu/ops/attention.ts)

  // --- softmax / cross-entropy / entropy, grad norm, AdamW (src/gpu/ops/loss.ts, src/gpu/ops/optim.ts)

  // --- decoding: KV cache and sampler (src/gpu/ops/decode.ts)
} as const satisfies Record<string, KernelDecl>;

export type KernelName = keyof typeof KERNELS;
