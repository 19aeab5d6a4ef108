// Every zone this server answers for, kept current by applying committed changes (zone-sync.ts
// decides which and retries them). Lookups walk the query name's suffixes, so the most specific
// hosted zone answers.
import type { Sealer } from '../../crypto/sealed.ts';
import type { ZoneChange } from '../../events/change-feed.ts';
import type { Db } from '../../store/database.ts';
import type { ZoneRow } from '../../store/zones.ts';
import type { HealthReport } from '../health/checker.ts';
import { catalogSerial, storeVersion } from '../../store/zones.ts';
import { catalogMembers, catalogView } from './catalog.ts';
import type { WireRecord } from './response.ts';
import { loadZone, refreshNames, setNames, sharedView, type SharedZone } from './load.ts';
import { recordValue } from './served-rrset.ts';
import { parentOf, rrsetOf, type ZoneView } from './zone-view.ts';

/** Own names up to this many stay beside a zone's image however small the image (mostlyOwn()). */
const ownNamesFloor = 1000;

/**
 * Whether `own` names held beside an image of a zone of `size` names make the zone better read
 * whole: more than an eighth of it (and than 1,000). Held beside the image, each name is an object
 * of a thread's (about 200 bytes a record a thread, against 60 in an image); read whole, the zone
 * gets a compact image, and reading its rows page by page costs about as much as reading that many
 * names. Decides both a change that touches them (an import: #load()) and what a thread started
 * again takes (current()).
 */
const mostlyOwn = (own: number, size: number): boolean => own > Math.max(ownNamesFloor, size / 8);

/** How long imageOf() waits for this thread to serve the version asked, and how often it looks. */
const imageWaitMs = 1000;
const imagePollMs = 20;

export class ServedZones {
  readonly #zones = new Map<string, ZoneView>();
  readonly #db: Db;
  readonly #sealer: Sealer;
  readonly #pending = new Map<string, Promise<unknown>>();
  /** Records reported down, by owner, type and RDATA: marked again whenever their RRset is rebuilt. */
  readonly #down = new Map<string, HealthReport>();
  /** Bumped after every applied change: cached answers from before are stale. */
  version = 0;
  /** Zones the store has but keeps disabled, and zones this thread failed to load (not served
   *  before either): their names are refused or fail with an Extended DNS Error saying which. */
  readonly #disabled = new Set<string>();
  readonly #unloaded = new Set<string>();

  readonly #onApplied: (change: ZoneChange, served: boolean) => void;
  /** EDGEPLANE_DNS_CATALOG (catalog.ts), if set. */
  readonly #catalogName: string | undefined;
  /** The catalog as served. A hosted zone of the same name is never served: whoever could write it
   *  would decide which zones the secondaries serve. */
  #catalog: ZoneView | undefined;
  /** Zones another thread of the process loaded, for loadAll() to take rather than read. */
  #given: readonly SharedZone[];
  /** Whether loadAll() keeps what other threads need to take the zones it loads (takeShared()). */
  readonly #sharing: boolean;
  #shared: SharedZone[] = [];
  /** Another thread of the process that may give this one the image of a zone to be read whole (imageOf()). */
  readonly #ask: ((zone: string, version: number) => Promise<SharedZone | undefined>) | undefined;
  readonly #onLoaded: (from: 'store' | 'thread') => void;
  /** Zones loadAll() took from another thread's images (taken). */
  #taken = 0;

  /**
   * `onApplied` runs after each change is applied, whichever way it arrived; `served`: the zone is.
   * `shared`: zones another thread loaded (its takeShared()); `share`: keep this thread's for others.
   * `ask`: another thread's imageOf(), tried before a zone is read whole after start; `onLoaded`:
   * a zone was loaded whole, read from the store or taken from another thread's image.
   */
  constructor(
    db: Db,
    sealer: Sealer,
    options: {
      onApplied?: (change: ZoneChange, served: boolean) => void;
      catalog?: string | undefined;
      shared?: readonly SharedZone[];
      share?: boolean;
      ask?: (zone: string, version: number) => Promise<SharedZone | undefined>;
      onLoaded?: (from: 'store' | 'thread') => void;
    } = {},
  ) {
    this.#db = db;
    this.#sealer = sealer;
    this.#onApplied = options.onApplied ?? (() => undefined);
    this.#catalogName = options.catalog;
    this.#given = options.shared ?? [];
    this.#sharing = options.share ?? false;
    this.#ask = options.ask;
    this.#onLoaded = options.onLoaded ?? (() => undefined);
  }

  /** The zones loadAll() loaded, for the other threads to take (once: this thread keeps nothing for them after). */
  takeShared(): SharedZone[] {
    const shared = this.#shared;
    this.#shared = [];
    return shared;
  }

  /**
   * The hosted zones as this thread serves them now, for a thread started again to take: each one's
   * image and the names this thread holds beside it, at this thread's version of the zone. The taker
   * reads those names' rows itself, and uses them only where the zone's row has that version. A zone
   * mostly held beside its image (many writes since it was built) is left out: the taker reads it
   * whole into a compact image of its own.
   */
  current(): SharedZone[] {
    return [...this.#zones.values()].map((view) => this.#sharedOf(view)).filter((shared) => shared !== undefined);
  }

  /**
   * The zone as this thread serves it once it has every change up to `version` (after the changes
   * of the zone under way here), for another thread about to read it whole to take instead
   * (#whole()); undefined when this thread does not serve it at that version within `waitMs` (it
   * failed to apply the change, or never heard of it), or holds it mostly beside its image.
   */
  async imageOf(zone: string, version: number, waitMs = imageWaitMs): Promise<SharedZone | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      await this.#pending.get(zone);
      const view = this.#zones.get(zone);
      if (view !== undefined && this.serves(zone, version)) return this.#sharedOf(view);
      if (Date.now() >= deadline) return undefined;
      // Not heard of here yet: in a process without the API each thread hears changes itself
      // (follow-store.ts), and the asker may have heard first.
      await new Promise((resolve) => setTimeout(resolve, imagePollMs));
    }
  }

  /** What another thread takes of a view (current(), imageOf()): its image and the names held beside it. */
  #sharedOf(view: ZoneView): SharedZone | undefined {
    const image = view.image;
    if (view === this.#catalog || image === undefined) return undefined;
    const names = view.ownNames();
    if (mostlyOwn(names.length, image.names)) return undefined;
    return { zoneId: view.head.id, version: view.head.version, image: image.data, rows: [], names };
  }

  /** How many zones loadAll() took from another thread's images rather than read whole. */
  get taken(): number {
    return this.#taken;
  }

  /** What a transfer of `zone` adds to its view: for the catalog, one record per hosted zone (catalog.ts). */
  transferExtras(zone: ZoneView): WireRecord[] {
    if (zone !== this.#catalog) return [];
    const members = [...this.#zones.values()].filter((hosted) => hosted !== zone).map((hosted) => ({ id: hosted.head.id, name: hosted.name }));
    return catalogMembers(zone.name, members);
  }

  /** Rebuilds the catalog's view with the stored serial: after any change of which zones are served. */
  async #refreshCatalog(): Promise<void> {
    const name = this.#catalogName;
    if (name === undefined) return;
    const serial = await catalogSerial(this.#db);
    // Changes of different zones are applied side by side: a slower read must not bring back an older serial.
    if (this.#catalog !== undefined && serial < this.#catalog.head.serial) return;
    this.#catalog = catalogView(name, serial);
    this.#zones.set(name, this.#catalog);
  }

  /** The most specific enabled zone containing `name`, if any. */
  find(name: string): ZoneView | undefined {
    for (let rest: string | undefined = name; rest !== undefined; rest = parentOf(rest)) {
      const zone = this.#zones.get(rest);
      if (zone !== undefined) return zone;
    }
    return undefined;
  }

  get(name: string): ZoneView | undefined {
    return this.#zones.get(name);
  }

  /** Applying `change` failed (zone-sync.ts retries it): a zone not served before stays unloaded till then. */
  failed(change: ZoneChange): void {
    if (change.deleted || this.#zones.has(change.zone)) return;
    this.#unloaded.add(change.zone);
    // Refusals cached before the zone existed would hide it.
    this.version++;
  }

  /** Why no zone answers for `name`: the most specific zone containing it is disabled, or not loaded. */
  absence(name: string): 'disabled' | 'unloaded' | undefined {
    if (this.#disabled.size === 0 && this.#unloaded.size === 0) return undefined;
    for (let rest: string | undefined = name; rest !== undefined; rest = parentOf(rest)) {
      if (this.#unloaded.has(rest)) return 'unloaded';
      if (this.#disabled.has(rest)) return 'disabled';
    }
    return undefined;
  }

  /**
   * Loads every enabled zone. Resolves to the store's zone version read first: every change up to
   * it is served, later ones may be in part.
   */
  async loadAll(): Promise<number> {
    const version = await storeVersion(this.#db);
    const zones = await this.#db.selectFrom('zones').selectAll().where('enabled', '=', 1).execute();
    const given = new Map(this.#given.map((shared) => [shared.zoneId, shared]));
    this.#given = [];
    const share = this.#sharing ? (shared: SharedZone) => this.#shared.push(shared) : undefined;
    for (const zone of zones) {
      if (zone.name === this.#catalogName) continue;
      // Another thread's image serves only when it has exactly this row's version; else the zone is read.
      const shared = given.get(zone.id);
      if (shared?.version === zone.version) {
        this.#zones.set(zone.name, await sharedView(this.#db, this.#sealer, zone, shared));
        this.#taken++;
        this.#onLoaded('thread');
      } else {
        this.#zones.set(zone.name, await loadZone(this.#db, this.#sealer, zone, share));
        this.#onLoaded('store');
      }
    }
    const disabled = await this.#db.selectFrom('zones').select('name').where('enabled', '=', 0).execute();
    for (const zone of disabled) this.#disabled.add(zone.name);
    await this.#refreshCatalog();
    return version;
  }

  /**
   * Applies a committed change by reading the store; rejects when that fails, leaving the zone at
   * its former version. Resolves to false when the zone was already served at the change's version
   * or later (nothing read). Changes of one zone are applied one after another, each reading after
   * the previous one finished, so a slower, older read can never overwrite a newer one.
   */
  apply(change: ZoneChange): Promise<boolean> {
    const previous = this.#pending.get(change.zone) ?? Promise.resolve();
    const next = previous.then(() => this.#apply(change));
    const settled = next.catch(() => undefined);
    this.#pending.set(change.zone, settled);
    void settled.then(() => {
      if (this.#pending.get(change.zone) === settled) this.#pending.delete(change.zone);
    });
    return next;
  }

  /**
   * Whether the view of `zone` has every change up to `version`. Versions are handed out in commit
   * order across all zones, so a view read at a later version (even of a zone of the same name
   * created since) has it too.
   */
  serves(zone: string, version: number): boolean {
    const current = this.#zones.get(zone);
    return current !== undefined && current !== this.#catalog && current.head.version >= version;
  }

  async #apply(change: ZoneChange): Promise<boolean> {
    if (this.serves(change.zone, change.version)) return false;
    try {
      await this.#load(change);
      this.#unloaded.delete(change.zone);
      if (change.names === undefined) await this.#refreshCatalog();
      for (const report of this.#down.values()) this.#mark(report);
    } finally {
      // Even a load that failed half-way may have replaced some names: cached answers are stale.
      this.version++;
    }
    this.#onApplied(change, this.#zones.has(change.zone));
    return true;
  }

  /** A record's health changed: answers from now on follow it. */
  setHealth(report: HealthReport): void {
    const key = `${report.owner}|${String(report.type)}|${report.rdata}`;
    if (report.up) this.#down.delete(key);
    else this.#down.set(key, report);
    this.#mark(report);
    this.version++;
  }

  /** The records the health checks last reported down. */
  downReports(): HealthReport[] {
    return [...this.#down.values()];
  }

  #mark(report: HealthReport): void {
    const rrset = rrsetOf(this.find(report.owner)?.node(report.owner), report.type);
    for (const record of rrset?.pickers?.records ?? []) {
      if (recordValue(rrset?.rdata ?? '', record.index) === report.rdata) record.up = report.up;
    }
  }

  async #load(change: ZoneChange): Promise<void> {
    if (change.zone === this.#catalogName) return;
    const served = this.#zones.get(change.zone);
    const written = change.written;
    // The names to apply one by one; none for a zone-wide change, or one of so many names the zone is better read whole.
    const names = change.names !== undefined && (served === undefined || !mostlyOwn(change.names.length, served.size)) ? change.names : undefined;
    // A change handed over with what it wrote, to a view with every change before it: nothing to read.
    if (written !== undefined && names !== undefined && served?.head.id === change.zoneId && served.head.version === change.previous && written.zone.enabled === 1) {
      setNames(served, written.zone, names, written.rrsets, change.version);
      return;
    }
    const zone: ZoneRow | undefined = await this.#db.selectFrom('zones').selectAll().where('id', '=', change.zoneId).executeTakeFirst();
    if (change.deleted || zone === undefined || zone.enabled !== 1) {
      this.#zones.delete(change.zone);
      // The periodic check reports a disabled zone as deleted: the row tells them apart.
      if (zone?.enabled === 0) this.#disabled.add(change.zone);
      else this.#disabled.delete(change.zone);
      return;
    }
    this.#disabled.delete(zone.name);
    const current = this.#zones.get(zone.name);
    // Only a view with every change before this one may take just its names; any other reloads.
    if (current !== undefined && names !== undefined && current.head.id === zone.id && current.head.version === change.previous) {
      await refreshNames(this.#db, current, zone, names, change.version);
    } else {
      this.#zones.set(zone.name, await this.#whole(zone, change.version));
    }
  }

  /**
   * A zone read whole after start (created, changed zone-wide, an import, a reload): from the image
   * another thread of the process has of it at `version` or later where there is one, so the
   * process keeps one copy (docs/dns-server.md, "Memory"); otherwise from the store.
   */
  async #whole(zone: ZoneRow, version: number): Promise<ZoneView> {
    const given = await this.#ask?.(zone.name, version);
    if (given?.zoneId === zone.id) {
      // Read again after the giver's view was: the head (SOA, key) is then never older than the
      // version the view claims, which may be later than the row read before.
      const row = await this.#db.selectFrom('zones').selectAll().where('id', '=', zone.id).executeTakeFirst();
      if (row?.enabled === 1 && row.version >= given.version) {
        const view = await sharedView(this.#db, this.#sealer, row, given);
        this.#onLoaded('thread');
        return view;
      }
    }
    const view = await loadZone(this.#db, this.#sealer, zone);
    this.#onLoaded('store');
    return view;
  }

  /** The hosted zones' names (not the catalog's). */
  names(): string[] {
    return [...this.#zones.keys()].filter((name) => this.#zones.get(name) !== this.#catalog);
  }

  get size(): number {
    return this.#zones.size - (this.#catalog === undefined ? 0 : 1);
  }
}
