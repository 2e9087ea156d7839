// The GPU runtime: owns one GPUDevice, compiles every kernel of the registry once (cached by
// name + override constants), builds bind groups over buffer ranges, and encodes a list of
// dispatches into one command buffer. Shapes always travel in uniforms (see `packParams`).
import { KERNELS, type KernelDecl, type KernelName, type BindingKind } from './kernels';

/** A byte range of a GPU buffer; what every kernel binding takes. */
export interface TensorRef {
  buffer: GPUBuffer;
  /** byte offset, a multiple of the device's minStorageBufferOffsetAlignment (256) */
  offset: number;
  /** byte length */
  size: number;
}

/** A recorded kernel launch: created once, replayed every step. */
export interface Dispatch {
  label: string;
  pipeline: GPUComputePipeline;
  bindGroup: GPUBindGroup;
  workgroups: [number, number, number];
}

export type GpuEvent =
  | { kind: 'lost'; reason: string; message: string }
  | { kind: 'error'; message: string };

export class GpuError extends Error {
  override name = 'GpuError';
}

/**
 * No usable GPU here: no adapter, or one without what the kernels need. A matter of the
 * machine's set-up, not a bug, so the CLI reports it in one line (other GpuErrors keep their
 * stack trace).
 */
export class GpuUnavailableError extends GpuError {
  override name = 'GpuUnavailableError';
}

export interface GpuStats {
  dispatches: number;
  submits: number;
  readbackBytes: number;
  pipelinesCreated: number;
}

type ParamField = { t: 'u32' | 'i32' | 'f32'; v: number };
export const u32 = (v: number): ParamField => ({ t: 'u32', v });
export const f32 = (v: number): ParamField => ({ t: 'f32', v });

/** Packs scalar uniform fields in declaration order (WGSL struct of 4-byte scalars), padded to 16 bytes. */
export function packParams(...fields: ParamField[]): ArrayBuffer {
  const bytes = Math.max(16, Math.ceil((fields.length * 4) / 16) * 16);
  const buf = new ArrayBuffer(bytes);
  const view = new DataView(buf);
  fields.forEach((f, i) => {
    if (f.t === 'f32') view.setFloat32(i * 4, f.v, true);
    else if (f.t === 'i32') view.setInt32(i * 4, f.v, true);
    else {
      if (!Number.isInteger(f.v) || f.v < 0 || f.v > 0xffffffff) throw new GpuError(`u32 uniform field ${i} got ${f.v}`);
      view.setUint32(i * 4, f.v, true);
    }
  });
  return buf;
}

// Numeric GPUBufferUsage flags (fixed by the spec) so this module does not depend on the
// WebGPU globals being loaded first (Node installs them at device creation).
const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;

/**
 * Which design a twin records: 'tiled' (workgroup-memory tiles, vec4, tree reductions: the
 * default for real GPUs) or 'direct' (register blocks, no workgroup memory or barriers: for CPU
 * adapters such as SwiftShader, where those orderings invert). Both are correct everywhere.
 */
export type KernelVariant = 'tiled' | 'direct';

export class Gpu {
  /**
   * Forces every twin recorded on this device from now on to one design (null: by adapter). For
   * tests and benchmarks that exercise the other design on this machine; kept per device, so two
   * devices in one process (a run worker and the self-test) never see each other's choice.
   */
  variantOverride: KernelVariant | null = null;
  readonly stats: GpuStats = { dispatches: 0, submits: 0, readbackBytes: 0, pipelinesCreated: 0 };
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  private readonly layouts = new Map<KernelName, GPUBindGroupLayout>();
  private readonly listeners = new Set<(e: GpuEvent) => void>();
  private lostInfo: GpuEvent | null = null;
  /** The first uncaptured GPU error; reads and syncs throw it so a failed step is never silent. */
  private firstError: string | null = null;

  constructor(
    readonly device: GPUDevice,
    readonly adapterName: string,
    private readonly sources: Readonly<Record<string, string>>,
    /**
     * A software (CPU) adapter such as SwiftShader, where performance orderings invert
     * (workgroup memory and barriers are slow): twins may pick a variant made for it.
     */
    readonly softwareAdapter = false,
  ) {
    // device.lost resolves once, when the device goes, and never rejects: nothing awaits it
    void device.lost.then((info) => {
      this.lostInfo = { kind: 'lost', reason: info.reason, message: info.message };
      this.emit(this.lostInfo);
    });
    device.onuncapturederror = (ev: GPUUncapturedErrorEvent) => {
      this.firstError ??= ev.error.message;
      this.emit({ kind: 'error', message: ev.error.message });
    };
  }

  /** The design a twin records: the explicit one, else the forced one, else by adapter. */
  kernelVariant(explicit?: KernelVariant): KernelVariant {
    return explicit ?? this.variantOverride ?? (this.softwareAdapter ? 'direct' : 'tiled');
  }

  get limits(): GPUSupportedLimits {
    return this.device.limits;
  }

  get isLost(): boolean {
    return this.lostInfo !== null;
  }

  onEvent(cb: (e: GpuEvent) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  private emit(e: GpuEvent): void {
    for (const cb of this.listeners) cb(e);
  }

  private assertAlive(): void {
    if (this.lostInfo) throw new GpuError(`GPU device lost (${this.lostInfo.kind === 'lost' ? this.lostInfo.reason : ''}): ${this.lostInfo.message}`);
  }

  // ---------------------------------------------------------------- buffers
  createBuffer(byteSize: number, label: string, usage: number = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST): GPUBuffer {
    this.assertAlive();
    const size = Math.max(16, Math.ceil(byteSize / 16) * 16);
    return this.device.createBuffer({ size, usage, label });
  }

  /** A set of buffers freed together (a model's parameters, activations and optimiser state). */
  owner(): BufferOwner {
    return new BufferOwner(this);
  }

  /** A storage buffer holding `data` (Float32Array, Int32Array or Uint32Array). */
  upload(data: Float32Array | Int32Array | Uint32Array, label: string): GPUBuffer {
    const buf = this.createBuffer(data.byteLength, label);
    this.write(buf, data);
    return buf;
  }

  write(target: GPUBuffer | TensorRef, data: ArrayBufferView | ArrayBuffer, byteOffset = 0): void {
    const ref = asRef(target);
    const src = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (byteOffset + src.byteLength > ref.size) throw new GpuError(`write of ${src.byteLength} bytes at ${byteOffset} overflows ${ref.buffer.label} (${ref.size} bytes)`);
    // writeBuffer needs a multiple of 4 bytes
    const padded = src.byteLength % 4 === 0 ? src : copyPadded(src);
    this.device.queue.writeBuffer(ref.buffer, ref.offset + byteOffset, padded.buffer as ArrayBuffer, padded.byteOffset, padded.byteLength);
  }

  /** A uniform buffer with the packed parameters; rewrite it with `write` when a value changes. */
  uniform(params: ArrayBuffer, label: string): GPUBuffer {
    const buf = this.createBuffer(params.byteLength, label, USAGE.UNIFORM | USAGE.COPY_DST);
    this.device.queue.writeBuffer(buf, 0, params);
    return buf;
  }

  /** Reads a buffer range back (one staging copy + mapAsync). Never call inside a step. */
  async read(source: GPUBuffer | TensorRef): Promise<ArrayBuffer> {
    this.assertAlive();
    const ref = asRef(source);
    const size = Math.ceil(ref.size / 4) * 4;
    const staging = this.device.createBuffer({ size, usage: USAGE.MAP_READ | USAGE.COPY_DST, label: 'readback' });
    const enc = this.device.createCommandEncoder({ label: 'readback' });
    enc.copyBufferToBuffer(ref.buffer, ref.offset, staging, 0, size);
    this.device.queue.submit([enc.finish()]);
    this.stats.submits++;
    await staging.mapAsync(0x1 /* GPUMapMode.READ */);
    const out = staging.getMappedRange().slice(0, ref.size);
    staging.unmap();
    staging.destroy();
    this.stats.readbackBytes += ref.size;
    this.throwIfFailed();
    return out;
  }

  async readF32(source: GPUBuffer | TensorRef): Promise<Float32Array> {
    return new Float32Array(await this.read(source));
  }

  async readU32(source: GPUBuffer | TensorRef): Promise<Uint32Array> {
    return new Uint32Array(await this.read(source));
  }

  // ---------------------------------------------------------------- pipelines
  private layout(name: KernelName): GPUBindGroupLayout {
    let layout = this.layouts.get(name);
    if (!layout) {
      const decl = KERNELS[name];
      layout = this.device.createBindGroupLayout({
        label: name,
        entries: decl.bindings.map((kind, binding) => ({
          binding,
          visibility: 0x4 /* GPUShaderStage.COMPUTE */,
          buffer: { type: bufferType(kind) },
        })),
      });
      this.layouts.set(name, layout);
    }
    return layout;
  }

  /** The compute pipeline of a registered kernel, compiled once per distinct override set. */
  pipeline(name: KernelName, overrides: Record<string, number> = {}): Promise<GPUComputePipeline> {
    const key = `${name}|${Object.keys(overrides).sort().map((k) => `${k}=${overrides[k]}`).join(',')}`;
    let p = this.pipelines.get(key);
    if (!p) {
      p = this.compile(name, overrides, key);
      this.pipelines.set(key, p);
    }
    return p;
  }

  private async compile(name: KernelName, overrides: Record<string, number>, key: string): Promise<GPUComputePipeline> {
    this.assertAlive();
    const decl: KernelDecl = KERNELS[name];
    const code = this.sources[decl.file];
    if (code === undefined) throw new GpuError(`kernel ${name}: shader file shaders/${decl.file} not found`);
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: decl.file, code });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    const scopeErr = await this.device.popErrorScope();
    if (errors.length || scopeErr) {
      const msgs = errors.map((m) => `shaders/${decl.file}:${m.lineNum}:${m.linePos}: ${m.message}`);
      if (scopeErr) msgs.push(scopeErr.message);
      throw new GpuError(`kernel ${name} failed to compile:\n${msgs.join('\n')}`);
    }
    this.device.pushErrorScope('validation');
    let pipeline: GPUComputePipeline;
    try {
      pipeline = await this.device.createComputePipelineAsync({
        label: key,
        layout: this.device.createPipelineLayout({ bindGroupLayouts: [this.layout(name)] }),
        compute: { module, entryPoint: decl.entry ?? 'main', constants: overrides },
      });
    } catch (e) {
      await this.device.popErrorScope();
      throw new GpuError(`kernel ${name}: pipeline creation failed: ${(e as Error).message}`);
    }
    const err = await this.device.popErrorScope();
    if (err) throw new GpuError(`kernel ${name}: pipeline creation failed: ${err.message}`);
    this.stats.pipelinesCreated++;
    return pipeline;
  }

  // ---------------------------------------------------------------- dispatch
  /**
   * Records one launch of kernel `name`. `bindings` follow the kernel's declaration order
   * in `kernels.ts` (outputs, inputs, then the uniform). Workgroup counts above the device
   * limit are a bug in the caller and are rejected here.
   */
  async kernel(
    name: KernelName,
    bindings: (GPUBuffer | TensorRef)[],
    workgroups: [number, number?, number?],
    overrides: Record<string, number> = {},
    label: string = name,
  ): Promise<Dispatch> {
    const decl = KERNELS[name];
    if (bindings.length !== decl.bindings.length) {
      throw new GpuError(`kernel ${name} takes ${decl.bindings.length} bindings, got ${bindings.length}`);
    }
    const wg: [number, number, number] = [workgroups[0], workgroups[1] ?? 1, workgroups[2] ?? 1];
    const maxWg = this.device.limits.maxComputeWorkgroupsPerDimension;
    if (wg.some((n) => !Number.isInteger(n) || n < 0 || n > maxWg)) throw new GpuError(`kernel ${label}: bad workgroup count ${wg}`);
    const pipeline = await this.pipeline(name, overrides);
    const bindGroup = this.device.createBindGroup({
      label,
      layout: this.layout(name),
      entries: bindings.map((b, binding) => {
        const r = asRef(b);
        return { binding, resource: { buffer: r.buffer, offset: r.offset, size: r.size } };
      }),
    });
    return { label, pipeline, bindGroup, workgroups: wg };
  }

  /** Encodes `dispatches` in order into one compute pass of one command buffer. */
  encode(encoder: GPUCommandEncoder, dispatches: readonly Dispatch[]): void {
    const pass = encoder.beginComputePass();
    for (const d of dispatches) {
      if (d.workgroups[0] * d.workgroups[1] * d.workgroups[2] === 0) continue;
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      pass.dispatchWorkgroups(d.workgroups[0], d.workgroups[1], d.workgroups[2]);
      this.stats.dispatches++;
    }
    pass.end();
  }

  /** Encodes and submits `dispatches` as one command buffer. */
  run(dispatches: readonly Dispatch[], label = 'run'): void {
    this.assertAlive();
    const encoder = this.device.createCommandEncoder({ label });
    this.encode(encoder, dispatches);
    this.submit(encoder);
  }

  submit(encoder: GPUCommandEncoder): void {
    this.device.queue.submit([encoder.finish()]);
    this.stats.submits++;
  }

  /**
   * Per-kernel GPU time with timestamp queries (each dispatch in its own pass), or null when
   * the device lacks 'timestamp-query'. For profiling only: it reads back.
   */
  async timeDispatches(dispatches: readonly Dispatch[]): Promise<{ label: string; ms: number }[] | null> {
    if (!this.device.features.has('timestamp-query') || dispatches.length === 0) return null;
    const n = dispatches.length;
    const querySet = this.device.createQuerySet({ type: 'timestamp', count: 2 * n });
    const resolve = this.device.createBuffer({ size: 16 * n, usage: 0x200 /* QUERY_RESOLVE */ | USAGE.COPY_SRC, label: 'timestamps' });
    const encoder = this.device.createCommandEncoder({ label: 'profile' });
    dispatches.forEach((d, i) => {
      const pass = encoder.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      pass.dispatchWorkgroups(...d.workgroups);
      pass.end();
    });
    encoder.resolveQuerySet(querySet, 0, 2 * n, resolve, 0);
    this.submit(encoder);
    const ticks = new BigUint64Array(await this.read(resolve));
    querySet.destroy();
    resolve.destroy();
    return dispatches.map((d, i) => ({ label: d.label, ms: Number(ticks[2 * i + 1] - ticks[2 * i]) / 1e6 }));
  }

  /** Resolves when all submitted work is done. */
  async sync(): Promise<void> {
    await this.device.queue.onSubmittedWorkDone();
    this.throwIfFailed();
  }

  /** Throws (once) the first GPU validation or out-of-memory error raised since the last check. */
  throwIfFailed(): void {
    if (this.firstError !== null) {
      const msg = this.firstError;
      this.firstError = null;
      throw new GpuError(`GPU error: ${msg}`);
    }
  }

  destroy(): void {
    this.device.destroy();
  }
}

/** Creates buffers through its Gpu and remembers them, so `destroy()` frees exactly those. */
export class BufferOwner {
  private readonly buffers = new Set<GPUBuffer>();
  constructor(private readonly gpu: Gpu) {}

  createBuffer(byteSize: number, label: string): GPUBuffer {
    const b = this.gpu.createBuffer(byteSize, label);
    this.buffers.add(b);
    return b;
  }

  upload(data: Float32Array | Int32Array | Uint32Array, label: string): GPUBuffer {
    const b = this.gpu.upload(data, label);
    this.buffers.add(b);
    return b;
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
    this.buffers.clear();
  }
}

export function asRef(b: GPUBuffer | TensorRef): TensorRef {
  return 'buffer' in b ? b : { buffer: b, offset: 0, size: b.size };
}

/**
 * Throws unless `ref` holds at least `elems` 4-byte elements. Bindings are clamped by WebGPU
 * robustness rather than rejected, so a short view would silently read zeros: every op checks
 * its buffers with this when it is recorded. `op` and `name` say which op and which buffer.
 */
export function requireElems(op: string, name: string, ref: TensorRef, elems: number): void {
  if (ref.size < elems * 4) throw new GpuError(`${op}: ${name} holds ${ref.size / 4} elements, needs ${elems}`);
}

/** A sub-range of `buffer` in float32 elements. */
export function view(buffer: GPUBuffer, offsetElems: number, lengthElems: number): TensorRef {
  return { buffer, offset: offsetElems * 4, size: lengthElems * 4 };
}

function bufferType(kind: BindingKind): GPUBufferBindingType {
  return kind === 'uniform' ? 'uniform' : kind === 'read' ? 'read-only-storage' : 'storage';
}

function copyPadded(src: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(src.byteLength / 4) * 4);
  out.set(src);
  return out;
}
