// A worker's GPU device, held for the worker's life: found and created once on `init`, replaced
// by `reconnect` after a loss, its events reported to the page. The main worker (mainHost.ts) and
// every GPU run worker (runHost.ts) hold one each, so a loss in one worker concerns it alone.
import type { AdapterSummary } from '../../gpu/device';
import type { Gpu } from '../../gpu/runtime';
import type { AdapterReport, DeviceEvent, NoGpuReason } from '../protocol/main';
import { errorText } from '../../util/errors';

export interface GpuProvider {
  requestAdapter(): Promise<{ adapter: GPUAdapter; summary: AdapterSummary }>;
  createGpu(adapter: GPUAdapter): Promise<Gpu>;
}

/** Device limits shown beside the adapter's: the ones kernels are sized by. */
const DEVICE_LIMITS = ['maxStorageBuffersPerShaderStage', 'maxComputeWorkgroupsPerDimension', 'maxComputeWorkgroupStorageSize', 'maxStorageBufferBindingSize', 'maxBufferSize'] as const;

function noGpuReason(): NoGpuReason {
  const nav = (globalThis as { navigator?: { gpu?: unknown } }).navigator;
  if (nav?.gpu) return 'no-adapter';
  return globalThis.isSecureContext === false ? 'insecure-context' : 'no-webgpu';
}

export class DeviceSlot {
  private gpu: Gpu | null = null;
  private report: Promise<AdapterReport> | null = null;
  private onEvent: ((e: DeviceEvent) => void) | null = null;

  /** `onLost` hears a loss before the page does (the run manager ends its runs). */
  constructor(private readonly provider: GpuProvider, private readonly onLost: (reason: string, message: string) => void = () => undefined) {}

  /** Finds the adapter and creates the device once; later calls return the same report. */
  init(onEvent: (e: DeviceEvent) => void): Promise<AdapterReport> {
    this.onEvent ??= onEvent;
    this.report ??= this.connect(onEvent);
    return this.report;
  }

  /**
   * After a device loss: finds an adapter and creates a new device. Runs on the lost device have
   * ended (runs.ts); the page starts them again from their checkpoints on the new one.
   */
  reconnect(): Promise<AdapterReport> {
    if (!this.onEvent) throw new Error('the engine has not been started yet');
    if (this.gpu && !this.gpu.isLost) throw new Error('the GPU device is still working; there is nothing to reconnect');
    this.gpu = null;
    this.report = this.connect(this.onEvent);
    return this.report;
  }

  private async connect(onEvent: (e: DeviceEvent) => void): Promise<AdapterReport> {
    let found: { adapter: GPUAdapter; summary: AdapterSummary };
    try {
      found = await this.provider.requestAdapter();
    } catch (e) {
      return { ok: false, reason: noGpuReason(), message: errorText(e) };
    }
    try {
      this.gpu = await this.provider.createGpu(found.adapter);
    } catch (e) {
      return { ok: false, reason: 'device-failed', message: errorText(e) };
    }
    const gpu = this.gpu;
    gpu.onEvent((e) => {
      // a device replaced by reconnect() has nothing more to say
      if (this.gpu !== gpu) return;
      if (e.kind === 'lost') this.onLost(e.reason, e.message);
      onEvent(e.kind === 'lost' ? { type: 'device-lost', reason: e.reason, message: e.message } : { type: 'gpu-error', message: e.message });
    });
    const deviceLimits: Record<string, number> = {};
    for (const k of DEVICE_LIMITS) deviceLimits[k] = Number(gpu.limits[k]);
    return { ok: true, adapter: found.summary, deviceLimits };
  }

  /** The device, or why there is none. */
  require(): Gpu {
    if (!this.gpu) throw new Error('the engine has no GPU device (see the adapter panel)');
    return this.gpu;
  }

  /** Debug command: destroys the device to exercise the device-lost path. */
  lose(): void {
    this.require().destroy();
  }
}
