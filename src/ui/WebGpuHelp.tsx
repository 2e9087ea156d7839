// What to do when there is no WebGPU device, by the reason the worker gave.
import type { NoGpuReason } from '../lab/protocol';

export const HEADLINES: Record<NoGpuReason, string> = {
  'no-webgpu': 'This browser does not offer WebGPU',
  'insecure-context': 'WebGPU needs a secure page',
  'no-adapter': 'WebGPU is present, but no GPU adapter was offered',
  'device-failed': 'The GPU cannot provide what the lab needs',
};

function Steps({ reason }: { reason: NoGpuReason }) {
  switch (reason) {
    case 'no-webgpu':
      return (
        <ul>
          <li>Use Chrome or Edge 113 or newer on Windows, macOS or ChromeOS, Chrome 121+ on Android, Safari 26+, or Firefox 141+ on Windows.</li>
          <li>
            On Linux, Chrome may need <code>chrome://flags/#enable-unsafe-webgpu</code> (and <code>#enable-vulkan</code>) switched on, or the
            command-line flag <code>--enable-unsafe-webgpu</code>.
          </li>
        </ul>
      );
    case 'insecure-context':
      return (
        <ul>
          <li>
            Open the lab over <code>https://</code> or on <code>http://localhost</code> (<code>npm start</code> serves it at{' '}
            <code>http://localhost:5173</code>).
          </li>
        </ul>
      );
    case 'no-adapter':
      return (
        <ul>
          <li>Check that hardware acceleration is on in the browser settings, and look at <code>chrome://gpu</code> for a blocklisted GPU.</li>
          <li>
            Without a usable GPU, Chrome started with <code>--enable-unsafe-webgpu</code> offers a CPU adapter (SwiftShader): everything
            works, slowly.
          </li>
        </ul>
      );
    case 'device-failed':
      return (
        <ul>
          <li>The lab's kernels need at least 10 storage buffers per shader stage; older or mobile GPUs may offer only 8.</li>
          <li>Updating the graphics driver or trying another browser can help.</li>
        </ul>
      );
  }
}

export function WebGpuHelp({ reason, message }: { reason: NoGpuReason; message: string }) {
  return (
    <div className="notice notice-warn">
      <h3>{HEADLINES[reason]}</h3>
      <p>RLVR Lab trains its model on your GPU through WebGPU, so its GPU engine cannot run here. CPU mode (at the top of the page) trains the tiny policy without it, slowly.</p>
      <Steps reason={reason} />
      <p className="detail">
        Reported by the browser: <code>{message}</code>
      </p>
    </div>
  );
}
