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
  // out[M,N], a, b, bias[N], params; main_vec4 is the aligned fast path of the same file
  matmul: { file: 'matmul.wgsl', bindings: ['storage', 'read', 'read', 'read', 'uniform'] },
  matmul_vec4: { file: 'matmul.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'read', 'read', 'uniform'] },
  // the CPU-adapter variant: batched, strided, 8x8 register blocks, no workgroup memory
  matmul_direct: { file: 'matmul_direct.wgsl', bindings: ['storage', 'read', 'read', 'read', 'uniform'] },
  // dbias[N] += column sums of dout[M,N]
  matmul_bias_backward: { file: 'matmul_bias_backward.wgsl', bindings: ['storage', 'read', 'uniform'] },
  matmul_bias_backward_direct: { file: 'matmul_bias_backward.wgsl', entry: 'main_direct', bindings: ['storage', 'read', 'uniform'] },

  // --- layernorm, gelu, encoder (src/gpu/ops/layers.ts)
  // Each `_vec4` entry is the same file's main_vec4: four floats per load, for C % 4 == 0 (or n % 4 == 0).
  // out[N,C], mean[N], rstd[N], inp[N,C], weight[C], bias[C]
  layernorm_forward: { file: 'layernorm_forward.wgsl', bindings: ['storage', 'storage', 'storage', 'read', 'read', 'read', 'uniform'] },
  layernorm_forward_vec4: { file: 'layernorm_forward.wgsl', entry: 'main_vec4', bindings: ['storage', 'storage', 'storage', 'read', 'read', 'read', 'uniform'] },
  // dinp[N,C] +=, dout[N,C], inp[N,C], weight[C], mean[N], rstd[N]
  layernorm_backward_dinp: { file: 'layernorm_backward_dinp.wgsl', bindings: ['storage', 'read', 'read', 'read', 'read', 'read', 'uniform'] },
  layernorm_backward_dinp_vec4: { file: 'layernorm_backward_dinp.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'read', 'read', 'read', 'read', 'uniform'] },
  // part[2,K,C] chunk partials of dweight, dbias (dout, inp, mean, rstd); then dweight[C] +=, dbias[C] += their sum
  layernorm_backward_params: { file: 'layernorm_backward_params.wgsl', bindings: ['storage', 'read', 'read', 'read', 'read', 'uniform'] },
  layernorm_backward_params_vec4: { file: 'layernorm_backward_params.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'read', 'read', 'read', 'uniform'] },
  layernorm_backward_reduce: { file: 'layernorm_backward_reduce.wgsl', bindings: ['storage', 'storage', 'read', 'uniform'] },
  // out[n] = gelu(inp[n]); dinp[n] = gelu'(inp) * dout
  gelu_forward: { file: 'gelu_forward.wgsl', bindings: ['storage', 'read', 'uniform'] },
  gelu_forward_vec4: { file: 'gelu_forward.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'uniform'] },
  gelu_backward: { file: 'gelu_backward.wgsl', bindings: ['storage', 'read', 'read', 'uniform'] },
  gelu_backward_vec4: { file: 'gelu_backward.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'read', 'uniform'] },
  // out[B,T,C], tokens[B,T] u32, wte[V,C], wpe[Tmax,C]
  encoder_forward: { file: 'encoder_forward.wgsl', bindings: ['storage', 'read', 'read', 'read', 'uniform'] },
  encoder_forward_vec4: { file: 'encoder_forward.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'read', 'read', 'uniform'] },
  // order[B*T], bucket[V] (start, count) from tokens[B,T]: positions sorted by token id (vec4: B*T % 4 == 0)
  encoder_backward_sort: { file: 'encoder_backward_sort.wgsl', bindings: ['storage', 'storage', 'read', 'uniform'] },
  encoder_backward_sort_vec4: { file: 'encoder_backward_sort.wgsl', entry: 'main_vec4', bindings: ['storage', 'storage', 'read', 'uniform'] },
  // dwte[V,C] +=, dout[B,T,C], order, bucket
  encoder_backward_wte: { file: 'encoder_backward_wte.wgsl', bindings: ['storage', 'read', 'read', 'read', 'uniform'] },
  encoder_backward_wte_vec4: { file: 'encoder_backward_wte.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'read', 'read', 'uniform'] },
  // dwpe[Tmax,C] +=, dout[B,T,C]
  encoder_backward_wpe: { file: 'encoder_backward_wpe.wgsl', bindings: ['storage', 'read', 'uniform'] },
  encoder_backward_wpe_vec4: { file: 'encoder_backward_wpe.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'uniform'] },
  // out[n] += a[n]; out[n] = value
  accumulate: { file: 'accumulate.wgsl', bindings: ['storage', 'read', 'uniform'] },
  accumulate_vec4: { file: 'accumulate.wgsl', entry: 'main_vec4', bindings: ['storage', 'read', 'uniform'] },
  fill: { file: 'fill.wgsl', bindings: ['storage', 'uniform'] },
  fill_vec4: { file: 'fill.wgsl', entry: 'main_vec4', bindings: ['storage', 'uniform'] },

  // --- attention (src/gpu/ops/attention.ts)
  attention_forward: { file: 'attention_forward.wgsl', bindings: ['storage', 'storage', 'read', 'uniform'] },
  attention_backward_dq: { file: 'attention_backward_dq.wgsl', bindings: ['storage', 'storage', 'read', 'read', 'read', 'read', 'uniform'] },
  attention_backward_dkv: { file: 'attention_backward_dkv.wgsl', bindings: ['storage', 'read', 'read', 'read', 'read', 'uniform'] },
  // CPU-adapter variant: row kernels between matmul_direct products. att[B,NH,T,T] S -> P, lse[B,NH,T] =
  attention_softmax_direct: { file: 'attention_softmax_direct.wgsl', bindings: ['storage', 'storage', 'uniform'] },
  // att S -> P, datt dP -> dS (both [B,NH,T,T], in place), lse[B,NH,T]
  attention_softmax_backward_direct: { file: 'attention_softmax_backward_direct.wgsl', bindings: ['storage', 'storage', 'read', 'uniform'] },

  // --- softmax / cross-entropy / entropy, grad norm, AdamW (src/gpu/ops/loss.ts, src/gpu/ops/optim.ts)
  // logp[R], entropy[R], dlogits[R,V] =, logits[R,V], targets[R] u32, w[R], e[R]
  softmax_logp: { file: 'softmax_logp.wgsl', bindings: ['storage', 'storage', 'storage', 'read', 'read', 'read', 'read', 'uniform'] },
  softmax_logp_direct: { file: 'softmax_logp.wgsl', entry: 'main_direct', bindings: ['storage', 'storage', 'storage', 'read', 'read', 'read', 'read', 'uniform'] },
  // partials[P] = Σ grads² per workgroup (SQUARE), then normSq[1] = Σ partials
  grad_norm_sq: { file: 'grad_norm_sq.wgsl', bindings: ['storage', 'read', 'uniform'] },
  grad_norm_sq_direct: { file: 'grad_norm_sq.wgsl', entry: 'main_direct', bindings: ['storage', 'read', 'uniform'] },
  // params[n], m[n], v[n] in place, status[1] u32; grads[n], flags[n] u32, normSq[1]
  adamw: { file: 'adamw.wgsl', bindings: ['storage', 'storage', 'storage', 'storage', 'read', 'read', 'read', 'uniform'] },

  // --- decoding: KV cache and sampler (src/gpu/ops/decode.ts)
  encoder_decode: { file: 'encoder_decode.wgsl', bindings: ['storage', 'read', 'read', 'read', 'read', 'uniform'] },
  kv_cache_write: { file: 'kv_cache_write.wgsl', bindings: ['storage', 'storage', 'read', 'read', 'uniform'] },
  attention_decode: { file: 'attention_decode.wgsl', bindings: ['storage', 'read', 'read', 'read', 'read', 'uniform'] },
  // direct design for software adapters: one invocation per (sequence, head), no workgroup memory
  attention_decode_direct: { file: 'attention_decode_direct.wgsl', bindings: ['storage', 'read', 'read', 'read', 'read', 'uniform'] },
  attention_decode_direct_scalar: { file: 'attention_decode_direct.wgsl', entry: 'main_scalar', bindings: ['storage', 'read', 'read', 'read', 'read', 'uniform'] },
  sample_step: { file: 'sample_step.wgsl', bindings: ['storage', 'storage', 'storage', 'storage', 'read', 'read', 'read', 'uniform'] },
  // direct design for software adapters: one invocation per sequence, the tiled kernel's sums in its order
  sample_step_direct: { file: 'sample_step_direct.wgsl', bindings: ['storage', 'storage', 'storage', 'storage', 'read', 'read', 'read', 'uniform'] },
  decode_advance: { file: 'decode_advance.wgsl', bindings: ['storage'] },
  kv_fork: { file: 'kv_fork.wgsl', bindings: ['storage', 'storage', 'uniform'] },
  // a block fused into two kernels, one workgroup per row: qOut[R,C], kcache, vcache; xin[R,C], params, step
  decode_attn_in: { file: 'decode_block.wgsl', entry: 'attn_in', bindings: ['storage', 'storage', 'storage', 'read', 'read', 'read', 'uniform'] },
  // xout[R,C]; kcache, vcache, xin[R,C], params, step, uniform, qIn[R,C]
  decode_attn_out: { file: 'decode_block.wgsl', entry: 'attn_out', bindings: ['storage', 'read', 'read', 'read', 'read', 'read', 'uniform', 'read'] },

  // --- policy gradient (src/gpu/ops/pg.ts)
  // w[B,T] =, e[B,T] =, stats[B,10] =; logp, entropy, oldLogp, refLogp, adv, coef (each [B,T])
  pg_loss: { file: 'pg_loss.wgsl', bindings: ['storage', 'storage', 'storage', 'read', 'read', 'read', 'read', 'read', 'read', 'uniform'] },
} as const satisfies Record<string, KernelDecl>;

export type KernelName = keyof typeof KERNELS;
