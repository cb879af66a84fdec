/**
 * The state shared by the parts of one entity's generation: its random stream, identity, lifetime and
 * an allocator of sub-item identifiers. Kept in one object so the part generators stay small.
 */

import type { Area, Geography } from '../../../platform/geography.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import type { Random } from '../../../platform/random.ts';
import type { AddressType, EntityStatusCode, EntityTypeCode } from '../domain/codes.ts';
import type { Address } from '../domain/schema.ts';
import { type AddressKind, type AddressLines, generateNzAddress, pickArea } from './addresses.ts';
import { SLOTS_PER_ENTITY, uniqueIdentifier } from './numbers.ts';
import type { Person } from './people.ts';
import type { TypeGroup } from './profile.ts';
import { randomDay, startOfNzDay } from './time.ts';

export interface EntityBuild {
  readonly random: Random;
  readonly index: number;
  readonly geography: Geography;
  readonly type: EntityTypeCode;
  readonly group: TypeGroup;
  readonly status: EntityStatusCode;
  /** When the entity was registered, and until when it was live (removal, closure, or asOf). */
  readonly registered: number;
  readonly liveUntil: number;
  readonly live: boolean;
  readonly home: Area;
  readonly people: readonly Person[];
  /** The next register-wide unique identifier for a sub-item. */
  nextId(): string;
  /** Formats an instant and remembers the latest one, which becomes lastUpdatedDate. */
  stamp(epochMs: number): string;
  /** Like stamp, for the New Zealand midnight starting the instant's day (start and appointment dates). */
  stampDay(epochMs: number): string;
  latest(): number;
}

export type BuildFields = Omit<EntityBuild, 'nextId' | 'stamp' | 'stampDay' | 'latest' | 'live'> & {
  readonly asOf: number;
};

/** A class rather than closures: one is made per entity, hundreds of thousands of times. */
class Build implements EntityBuild {
  readonly random: Random;
  readonly index: number;
  readonly geography: Geography;
  readonly type: EntityTypeCode;
  readonly group: TypeGroup;
  readonly status: EntityStatusCode;
  readonly registered: number;
  readonly liveUntil: number;
  readonly live: boolean;
  readonly home: Area;
  readonly people: readonly Person[];
  private slot = 0;
  private latestInstant: number;

  constructor(fields: BuildFields) {
    this.random = fields.random;
    this.index = fields.index;
    this.geography = fields.geography;
    this.type = fields.type;
    this.group = fields.group;
    this.status = fields.status;
    this.registered = fields.registered;
    this.liveUntil = fields.liveUntil;
    this.live = fields.liveUntil >= fields.asOf;
    this.home = fields.home;
    this.people = fields.people;
    this.latestInstant = fields.registered;
  }

  nextId(): string {
    if (this.slot >= SLOTS_PER_ENTITY)
      throw new RangeError(`entity ${this.index} needs more than 100 sub-items`);
    return uniqueIdentifier(this.index, this.slot++);
  }

  stamp(epochMs: number): string {
    if (epochMs > this.latestInstant) this.latestInstant = epochMs;
    return formatNzDateTime(epochMs);
  }

  stampDay(epochMs: number): string {
    return this.stamp(startOfNzDay(epochMs));
  }

  latest(): number {
    return this.latestInstant;
  }
}

export function createBuild(fields: BuildFields): EntityBuild {
  return new Build(fields);
}

/** A day in the entity's live span, from its registration on. */
export function dayInLife(build: EntityBuild, from = build.registered): number {
  return randomDay(build.random, Math.max(from, build.registered), build.liveUntil);
}

const POST_BOX = /^(PO Box|Private Bag) /;

/**
 * An address item with its identifier and start day. A street address in New Zealand usually has a
 * PAF (NZ Post Postal Address File) id; it is derived from the address text, so the same address
 * carries the same id wherever it appears (a director's address on their director and shareholder
 * roles, say).
 */
export function addressItem(
  build: EntityBuild,
  lines: AddressLines,
  addressType: AddressType | null,
  startDate: number,
): Address {
  return {
    uniqueIdentifier: build.nextId(),
    startDate: build.stampDay(startDate),
    endDate: null,
    careOf: lines.careOf,
    address1: lines.address1,
    address2: lines.address2,
    address3: lines.address3,
    address4: lines.address4,
    postCode: lines.postCode,
    countryCode: lines.countryCode,
    addressType,
    pafId: pafIdFor(lines),
  };
}

/** The address's PAF id: most New Zealand street addresses have one; PO boxes and overseas ones not. */
export function pafIdFor(lines: AddressLines): string | null {
  const hash = lines.countryCode === 'NZ' && !POST_BOX.test(lines.address1) ? addressHash(lines) : 0;
  return hash % 10 < 6 ? String(1_000_000 + (hash % 9_000_000)) : null;
}

/** FNV-1a, 32 bits, over the address lines: a fast, stable hash (not for security). */
function addressHash(lines: AddressLines): number {
  let hash = 0x811c9dc5;
  for (const line of [lines.address1, lines.address2, lines.address3, lines.address4, lines.postCode]) {
    if (line === null) continue;
    for (let i = 0; i < line.length; i++) {
      hash ^= line.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    hash = Math.imul(hash ^ 0x7c, 0x01000193);
  }
  return hash >>> 0;
}

/** A person's residential address: usually in the business's region, sometimes anywhere. */
export function residentialAddress(build: EntityBuild, kind: AddressKind = 'street'): AddressLines {
  const area = build.random.chance(0.85)
    ? pickArea(build.random, build.geography, build.home.region.code)
    : pickArea(build.random, build.geography);
  return generateNzAddress(build.random, area, kind);
}
