// CPU mode's dedicated module worker: the run API on the float64 reference engine, for browsers
// without WebGPU. Started by the page only when the user picks CPU mode (one per run); the page
// imports nothing from here.
import { serve } from '../bridge';
import { cpuRunHost } from './runHost';
import { cachedPolicyLoader } from './policies';
import { fileCheckpointStore } from './checkpoints';
import { opfsFs } from './storage/opfs';

// the same origin-private checkpoint folders as the GPU engine: a run id names one run whichever engine ran it
serve(cpuRunHost({ loadPolicy: cachedPolicyLoader(new URL(import.meta.env.BASE_URL, self.location.origin)), checkpoints: fileCheckpointStore(opfsFs()) }), 'rlvr-lab CPU worker');
