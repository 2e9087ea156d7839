// "Start the adapter sets from…": an uploaded adapter file's set, read from the adapter_config in
// its metadata before the run starts (the worker checks its values against the base then). Every
// problem is one message naming the file once: not "Cannot read properties of null" for an
// adapter_config of null, not "its set is undefined" for one that is a list.
import { decodeSafetensors, CheckpointError } from '../../model/safetensors';
import { showValue } from '../../util/show';

/** An adapter file is a few MB (rank 32 on every projection of the small base); 256 MB is any. */
export const MAX_ADAPTER_FILE_BYTES = 256 * 2 ** 20;

/** The set an uploaded file holds, or why it cannot start one of `sets` (the message names the file). */
export function adapterStartSet(fileName: string, bytes: Uint8Array, loop: string, sets: readonly string[]): { name: string } | { error: string } {
  if (bytes.length > MAX_ADAPTER_FILE_BYTES) return { error: `${fileName} is ${(bytes.length / 2 ** 20).toFixed(0)} MB; an adapter file is at most ${MAX_ADAPTER_FILE_BYTES / 2 ** 20} MB` };
  let config: string | undefined;
  try {
    config = decodeSafetensors(bytes, fileName).metadata.adapter_config;
  } catch (e) {
    if (e instanceof CheckpointError) return { error: e.message };
    throw e;
  }
  const none = `${fileName}: no adapter_config in its metadata: upload an adapter set the lab exported (a run's "solver adapter" or "proposer adapter")`;
  if (!config) return { error: none };
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch {
    return { error: `${fileName}: its adapter_config is not JSON` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: `${fileName}: its adapter_config is ${showValue(parsed)}, not PEFT's LoraConfig object` };
  const name = (parsed as { adapter_name?: unknown }).adapter_name;
  if (typeof name !== 'string') return { error: `${fileName}: its adapter_config names no set (adapter_name = ${showValue(name)}); ${loop} trains ${sets.join(' and ')}` };
  if (!sets.includes(name)) return { error: `${fileName}: its set is ${showValue(name)}; ${loop} trains ${sets.join(' and ')}` };
  return { name };
}
