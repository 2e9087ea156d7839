// The Explore section: a grid of a loop's knobs × seeds run on this GPU (its runs are ordinary runs
// of the run list), or a sweep file (imported, or a gallery entry opened by address), drawn by the
// same code: every step metric by arm with bands, pass@k and maj@k by k, the results table, and
// parallel coordinates past four arms. Exports the sweep and the ablate commands that reproduce it.
import { useEffect, useMemo, useRef, useState } from 'react';
import { formatDuration } from '../format';
import { armViews, chartDefs, heldoutView, seedsWith, X_LABEL, X_MODES, type ArmView, type XMode } from '../../explore/draw';
import type { Sweep } from '../../explore/format';
import { sweepText } from '../../explore/format';
import { sweepOfGrid } from '../../explore/live';
import { commandsScript, sweepCommands } from '../../explore/commands';
import { TABLE_METRICS } from '../../explore/table';
import { BAND_KINDS, BAND_LABEL, type BandKind } from '../../metrics/bands';
import { downloadBlob } from '../download';
import { useLab } from '../LabStore';
import { Panel } from '../Panel';
import { BandChart } from './BandChart';
import { ArmLegend } from './frame';
import { GridFormPanel, GridQueue } from './GridForm';
import { KChart } from './KChart';
import { ParallelCoords } from './ParallelCoords';
import { ResultsTable } from './ResultsTable';
import './explorer.css';

/** What the explorer draws now: the grid's runs as a sweep (live), or the file's. */
function useShownSweep(): { sweep: Sweep | null; order?: string[]; planned?: Record<string, number>; live: boolean; waiting?: ArmView[] } {
  const source = useLab((s) => s.explorer.source);
  const grid = useLab((s) => s.explorer.grid);
  const byId = useLab((s) => s.runs.byId);
  return useMemo(() => {
    if (source.kind === 'file') return { sweep: source.sweep, live: false };
    if (!grid) return { sweep: null, live: true };
    const live = sweepOfGrid(grid, (id) => byId[id]);
    // arms with no seed evaluated yet: in the legend and the table with n = 0, in their colour
    const drawn = new Set(live.sweep?.arms.map((a) => a.id) ?? []);
    const waiting: ArmView[] = grid.arms.flatMap((a, i) => (drawn.has(a.id) ? [] : [{
      id: a.id, label: a.label, colour: i, loop: a.loop, policy: a.policy, control: a.control === true, matchedTo: a.matchedTo, knobs: a.knobs,
      config: a.config as unknown as Record<string, unknown>, seeds: [], planned: live.planned[a.id] ?? 0,
    }]));
    return { sweep: live.sweep, order: grid.arms.map((a) => a.id), planned: live.planned, live: true, waiting };
  }, [source, grid, byId]);
}

const fileName = (title: string) => title.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60) || 'sweep';

function ImportExport({ sweep }: { sweep: Sweep | null }) {
  const importFiles = useLab((s) => s.importSweepFiles);
  const error = useLab((s) => s.explorer.importError);
  const exportJson = () => sweep && downloadBlob(new Blob([sweepText(sweep)], { type: 'application/json' }), `${fileName(sweep.title)}.sweep.json`);
  const exportCommands = () => sweep && downloadBlob(new Blob([commandsScript(sweep.title, sweepCommands(sweep))], { type: 'text/x-shellscript' }), `${fileName(sweep.title)}.ablate.sh`);
  return (
    <div className="explorer-io">
      <label htmlFor="explorer-import" className="file-button">
        Import sweep or ablation files…
      </label>
      <input
        id="explorer-import" type="file" multiple className="visually-hidden" accept=".json,application/json" data-testid="explorer-import"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          void importFiles(files);
        }}
      />
      <button type="button" className="secondary" data-testid="explorer-export-json" disabled={!sweep} onClick={exportJson}>
        Export sweep (JSON)
      </button>
      <button type="button" className="secondary" data-testid="explorer-export-commands" disabled={!sweep} onClick={exportCommands}>
        Export ablate commands
      </button>
      <span className="detail">one file per arm (rlvr-lab ablate --json) or a sweep; the explorer draws it as it draws a grid it ran</span>
      {error && (
        <p className="cfg-error" role="alert" data-testid="explorer-import-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** What the file's runs cost where they were measured: a grid run live takes its share of that on this GPU. */
function costText(sweep: Sweep): string {
  const runs = sweep.arms.flatMap((a) => a.ablation.results);
  const seconds = runs.reduce((t, r) => t + r.seconds, 0);
  return `(${runs.length} run${runs.length === 1 ? '' : 's'}; ${formatDuration(seconds)} of compute in all where they were measured)`;
}

function FileHeader({ sweep, name, gallery }: { sweep: Sweep; name: string; gallery: string | null }) {
  const live = useLab((s) => s.startSweepLive);
  const refusal = useLab((s) => s.explorer.refusal);
  const showGrid = useLab((s) => s.showGrid);
  return (
    <div className="explorer-file" data-testid="explorer-file" data-gallery={gallery ?? ''}>
      <h3>{sweep.title}</h3>
      {sweep.claim && <p><strong>The paper&apos;s claim:</strong> {sweep.claim}</p>}
      {sweep.verdict && <p data-testid="explorer-verdict"><strong>Verdict:</strong> {sweep.verdict}</p>}
      {sweep.measured && <p><strong>What the lab measured:</strong> {sweep.measured}</p>}
      <p className="detail">
        From {name}{sweep.base ? ` · base ${sweep.base}` : ''}{sweep.commit ? ` · commit ${sweep.commit}` : ''}. Drawn from the file: nothing trains.
        {!sweep.curvesRecorded && ' Step curves were not recorded in this file (start and end evaluations only): the pass@k curves and the table are drawn from them.'}
      </p>
      <button type="button" data-testid="explorer-run-live" onClick={() => void live()} title="Queue the same arms, configs and seeds on this GPU; they draw as they train">
        Run this grid live on your GPU
      </button>{' '}
      <span className="detail" data-testid="explorer-file-cost">{costText(sweep)}</span>{' '}
      <button type="button" className="secondary" data-testid="explorer-show-grid" onClick={showGrid}>
        Back to the grid
      </button>
      {refusal && <p className="cfg-error" role="alert">{refusal.message}</p>}
    </div>
  );
}

/** `lead`: the step metrics the file's question is about (its `lead`), drawn first and in the table. */
function Views({ arms, lead }: { arms: ArmView[]; lead: readonly string[] }) {
  const band = useLab((s) => s.explorer.band);
  const mode = useLab((s) => s.explorer.xAxis);
  const showSeeds = useLab((s) => s.explorer.showSeeds);
  const setBand = useLab((s) => s.setExplorerBand);
  const setX = useLab((s) => s.setExplorerX);
  const setSeeds = useLab((s) => s.setShowSeeds);
  const defs = useMemo(() => chartDefs(arms), [arms]);
  const held = useMemo(() => heldoutView(arms), [arms]);
  const [control, setControl] = useState<string | null>(null);
  const controlId = arms.some((a) => a.id === control) ? control : (arms.find((a) => a.control) ?? arms[0])?.id ?? null;
  const leadDefs = lead.flatMap((k) => defs.filter((d) => d.key === k));
  const rest = defs.filter((d) => !leadDefs.includes(d));
  const metrics = [...new Set([...leadDefs.map((d) => d.key), ...TABLE_METRICS])].filter((k) => defs.some((d) => d.key === k));
  const count = (a: ArmView) => seedsWith(a, defs[0]?.key ?? 'reward') || a.seeds.length;
  return (
    <>
      <div className="chart-controls">
        <label htmlFor="explorer-band">Band</label>
        <select id="explorer-band" data-testid="explorer-band" value={band} onChange={(e) => setBand(e.target.value as BandKind)}>
          {BAND_KINDS.map((k) => (
            <option key={k} value={k}>
              {BAND_LABEL[k]}
            </option>
          ))}
        </select>
        <label htmlFor="explorer-x">x-axis</label>
        <select id="explorer-x" data-testid="explorer-xaxis" value={mode} onChange={(e) => setX(e.target.value as XMode)}>
          {X_MODES.map((m) => (
            <option key={m} value={m}>
              {X_LABEL[m]}
            </option>
          ))}
        </select>
        <label className="check">
          <input type="checkbox" checked={showSeeds} data-testid="explorer-seeds-toggle" onChange={(e) => setSeeds(e.target.checked)} />
          Each seed&apos;s line
        </label>
      </div>
      <ArmLegend arms={arms} band={band} count={count} />
      {leadDefs.length > 0 && (
        <>
          <h3 className="explorer-h">What this comparison is about</h3>
          <div className="chart-grid-layout" data-testid="explorer-lead">
            {leadDefs.map((d) => (
              <BandChart key={d.id} def={d} arms={arms} mode={mode} band={band} showSeeds={showSeeds} />
            ))}
          </div>
        </>
      )}
      <h3 className="explorer-h">Results at the end</h3>
      <ResultsTable arms={arms} metrics={metrics} lead={leadDefs.length} controlId={controlId} setControl={setControl} />
      {arms.length > 4 && <ParallelCoords arms={arms} metrics={metrics} />}
      <h3 className="explorer-h">Held-out evaluation</h3>
      <div className="chart-grid-layout">
        <KChart what="pass" arms={arms} />
        <KChart what="maj" arms={arms} />
      </div>
      {held.curves && (
        <>
          <h3 className="explorer-h">The held-out set over training</h3>
          <div className="chart-grid-layout" data-testid="explorer-heldout">
            {held.defs.map((d) => (
              <BandChart key={d.id} def={d} arms={held.arms} mode={mode} band={band} showSeeds={showSeeds} />
            ))}
          </div>
        </>
      )}
      <h3 className="explorer-h">Every step metric, by arm</h3>
      {defs.length === 0 && <p className="detail" data-testid="explorer-no-curves">No step curves: {arms.every((a) => a.seeds.every((s) => !s.series)) ? 'the file holds start and end evaluations only.' : 'none recorded yet.'}</p>}
      <div className="chart-grid-layout">
        {rest.filter((d) => !d.extra).map((d) => (
          <BandChart key={d.id} def={d} arms={arms} mode={mode} band={band} showSeeds={showSeeds} />
        ))}
      </div>
      {rest.some((d) => d.extra) && (
        <details className="explorer-more" data-testid="explorer-more-metrics">
          <summary>{rest.filter((d) => d.extra).length} more step metrics the runs recorded (no chart of their own in the loops&apos; views)</summary>
          <div className="chart-grid-layout">
            {rest.filter((d) => d.extra).map((d) => (
              <BandChart key={d.id} def={d} arms={arms} mode={mode} band={band} showSeeds={showSeeds} />
            ))}
          </div>
        </details>
      )}
    </>
  );
}

export function Explorer() {
  const source = useLab((s) => s.explorer.source);
  const grid = useLab((s) => s.explorer.grid);
  const opening = useLab((s) => s.explorer.opening);
  const warnings = useLab((s) => s.explorer.warnings);
  const showGrid = useLab((s) => s.showGrid);
  const reveal = useLab((s) => s.explorer.reveal);
  const setReveal = useLab((s) => s.setExplorerReveal);
  const shown = useShownSweep();
  const arms = useMemo(() => (shown.sweep ? [...armViews(shown.sweep, { order: shown.order, planned: shown.planned }), ...(shown.waiting ?? [])].sort((a, b) => a.colour - b.colour) : []), [shown]);
  const ref = useRef<HTMLDivElement>(null);
  // opened by its address (a gallery entry): the explorer comes into view once it has something to show
  useEffect(() => {
    if (!reveal || (source.kind === 'file' ? false : !grid)) return;
    ref.current?.scrollIntoView({ block: 'start' });
    setReveal(false);
  }, [reveal, source, grid, setReveal]);
  return (
    <div ref={ref} id="explorer" data-testid="explorer" data-source={source.kind} data-arms={arms.length}>
      <Panel
        title="Explore an ablation" className="panel-wide explorer"
        intro="A grid of one loop's knobs × seeds, run on this GPU, drawn paper-style as it trains: each arm's mean over seeds with a band, pass@k by k, and a table of end results with differences paired by problem. Or open a sweep file (rlvr-lab ablate --json, or a sweep exported here)."
      >
        {warnings.map((w) => (
          <p key={w} className="notice notice-warn">{w}</p>
        ))}
        {opening && <p className="detail">Opening {opening}…</p>}
        {source.kind === 'file' ? <FileHeader sweep={source.sweep} name={source.name} gallery={source.gallery} /> : (
          <>
            <GridFormPanel />
            <GridQueue />
          </>
        )}
        {source.kind === 'file' && grid && (
          <p className="detail">
            A grid is queued on this GPU: <button type="button" className="link" onClick={showGrid}>show it</button>.
          </p>
        )}
        <ImportExport sweep={shown.sweep} />
        {arms.length > 0 ? <Views arms={arms} lead={source.kind === 'file' ? source.sweep.lead ?? [] : []} /> : <p className="detail">{source.kind === 'grid' && grid ? 'The charts appear once the first run has its first evaluation.' : 'Start a grid, or import a file, to draw it here.'}</p>}
      </Panel>
    </div>
  );
}
