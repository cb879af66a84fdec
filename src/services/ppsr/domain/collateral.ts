/**
 * Collateral of a financing statement: the 13 published collateral types and their rules.
 *
 * | code (ours)             | published name                                                 | rule                                                        |
 * |-------------------------|----------------------------------------------------------------|-------------------------------------------------------------|
 * | GOODS_LIVESTOCK         | Goods – Livestock                                              | description optional                                        |
 * | GOODS_CROPS             | Goods – Crops                                                  | description optional                                        |
 * | DOCUMENTS_OF_TITLE      | Documents of Title                                             | description optional                                        |
 * | CHATTEL_PAPER           | Chattel Paper                                                  | description optional                                        |
 * | INVESTMENT_SECURITIES   | Investment Securities                                          | description optional                                        |
 * | NEGOTIABLE_INSTRUMENTS  | Negotiable Instruments                                         | description optional                                        |
 * | MONEY                   | Money                                                          | description optional                                        |
 * | INTANGIBLES             | Intangibles                                                    | description optional                                        |
 * | AAPP                    | All Present and After Acquired Personal Property               | description optional                                        |
 * | AAPP_EXCEPT             | All Present and After Acquired Personal Property Except        | description required: it names what is excepted             |
 * | GOODS_OTHER             | Goods – Other                                                  | description optional                                        |
 * | GOODS_MOTOR_VEHICLES    | Goods – Motor Vehicles                                         | 1–100 vehicles: make, model, year, and a VIN, chassis number or plate |
 * | GOODS_AIRCRAFT          | Goods – Aircraft                                               | 1–100 aircraft: manufacturer, model, serial number          |
 *
 * Every description is at most 4,000 characters (published). An amendment that keeps a vehicle as it was
 * does not check it again (published: removing or keeping a vehicle never re-validates its VIN); only new or
 * changed vehicles are checked.
 */
import { RuleError } from '../../../platform/errors.ts';
import {
  canonicalChassis,
  canonicalPlate,
  canonicalVin,
  isChassisNumber,
  isPlate,
  isVin,
} from './vehicles.ts';

export const COLLATERAL_TYPES = {
  GOODS_LIVESTOCK: 'Goods – Livestock',
  GOODS_CROPS: 'Goods – Crops',
  DOCUMENTS_OF_TITLE: 'Documents of Title',
  CHATTEL_PAPER: 'Chattel Paper',
  INVESTMENT_SECURITIES: 'Investment Securities',
  NEGOTIABLE_INSTRUMENTS: 'Negotiable Instruments',
  MONEY: 'Money',
  INTANGIBLES: 'Intangibles',
  AAPP: 'All Present and After Acquired Personal Property',
  AAPP_EXCEPT: 'All Present and After Acquired Personal Property Except',
  GOODS_OTHER: 'Goods – Other',
  GOODS_MOTOR_VEHICLES: 'Goods – Motor Vehicles',
  GOODS_AIRCRAFT: 'Goods – Aircraft',
} as const;
export type CollateralType = keyof typeof COLLATERAL_TYPES;
export const COLLATERAL_TYPE_CODES = Object.keys(COLLATERAL_TYPES) as CollateralType[];

export const MAX_DESCRIPTION = 4000;
export const MAX_ITEMS = 100;
/** The first motor car (1886); a model year may run one year ahead of the calendar. */
export const FIRST_VEHICLE_YEAR = 1886;

export interface MotorVehicle {
  make: string;
  model: string;
  year: number;
  vin?: string | undefined;
  chassisNumber?: string | undefined;
  registrationPlate?: string | undefined;
}

export interface Aircraft {
  manufacturer: string;
  model: string;
  serialNumber: string;
}

export interface Collateral {
  collateralType: CollateralType;
  description?: string | undefined;
  motorVehicles?: MotorVehicle[] | undefined;
  aircraft?: Aircraft[] | undefined;
}

const AIRCRAFT_SERIAL = /^[A-Z0-9](?:[A-Z0-9-]{0,38}[A-Z0-9])?$/;

const isCollateralType = (value: string): value is CollateralType => Object.hasOwn(COLLATERAL_TYPES, value);
const blank = (value: string | undefined): boolean => value === undefined || value.trim() === '';

function requireText(value: string | undefined, field: string, max: number): void {
  if (blank(value)) throw new RuleError(field, 'is required');
  if (value!.length > max) throw new RuleError(field, `must be at most ${max} characters`);
}

/** A vehicle with its identifiers in canonical form (upper case, no spaces), as the register stores it. */
export function canonicalVehicle(vehicle: MotorVehicle): MotorVehicle {
  return {
    make: vehicle.make.trim(),
    model: vehicle.model.trim(),
    year: vehicle.year,
    vin: blank(vehicle.vin) ? undefined : canonicalVin(vehicle.vin!),
    chassisNumber: blank(vehicle.chassisNumber) ? undefined : canonicalChassis(vehicle.chassisNumber!),
    registrationPlate: blank(vehicle.registrationPlate)
      ? undefined
      : canonicalPlate(vehicle.registrationPlate!),
  };
}

const vehicleKey = (v: MotorVehicle): string =>
  JSON.stringify([
    v.make,
    v.model,
    v.year,
    v.vin ?? null,
    v.chassisNumber ?? null,
    v.registrationPlate ?? null,
  ]);

function checkVehicle(vehicle: MotorVehicle, field: string, currentYear: number): void {
  requireText(vehicle.make, `${field}.make`, 60);
  requireText(vehicle.model, `${field}.model`, 60);
  if (
    !Number.isInteger(vehicle.year) ||
    vehicle.year < FIRST_VEHICLE_YEAR ||
    vehicle.year > currentYear + 1
  ) {
    throw new RuleError(`${field}.year`, `must be a year from ${FIRST_VEHICLE_YEAR} to ${currentYear + 1}`);
  }
  if (blank(vehicle.vin) && blank(vehicle.chassisNumber) && blank(vehicle.registrationPlate)) {
    throw new RuleError(field, 'must have at least one of vin, chassisNumber and registrationPlate');
  }
  if (vehicle.vin !== undefined && !isVin(vehicle.vin)) {
    throw new RuleError(`${field}.vin`, 'must be 17 letters and digits, without I, O or Q');
  }
  if (vehicle.chassisNumber !== undefined && !isChassisNumber(vehicle.chassisNumber)) {
    throw new RuleError(`${field}.chassisNumber`, 'must be 4 to 20 letters, digits and inner hyphens');
  }
  if (vehicle.registrationPlate !== undefined && !isPlate(vehicle.registrationPlate)) {
    throw new RuleError(`${field}.registrationPlate`, 'must be 1 to 6 letters and digits');
  }
}

function checkAircraft(aircraft: Aircraft, field: string): Aircraft {
  requireText(aircraft.manufacturer, `${field}.manufacturer`, 60);
  requireText(aircraft.model, `${field}.model`, 60);
  requireText(aircraft.serialNumber, `${field}.serialNumber`, 40);
  const serialNumber = aircraft.serialNumber.replace(/\s+/g, '').toUpperCase();
  if (!AIRCRAFT_SERIAL.test(serialNumber)) {
    throw new RuleError(`${field}.serialNumber`, 'must be 1 to 40 letters, digits and inner hyphens');
  }
  return { manufacturer: aircraft.manufacturer.trim(), model: aircraft.model.trim(), serialNumber };
}

/**
 * Checks the collaterals of a registration or an amendment and returns them in canonical form. `previous`
 * is the current version's collaterals on an amendment: vehicles found there unchanged are not checked
 * again. `currentYear` is the New Zealand calendar year on the environment's clock.
 */
export function checkCollaterals(
  collaterals: readonly Collateral[],
  currentYear: number,
  previous: readonly Collateral[] = [],
): Collateral[] {
  if (collaterals.length === 0) throw new RuleError('collaterals', 'must have at least one collateral');
  if (collaterals.length > 20) throw new RuleError('collaterals', 'must have at most 20 collaterals');
  const kept = new Set(
    previous.flatMap((c) => (c.motorVehicles ?? []).map((v) => vehicleKey(canonicalVehicle(v)))),
  );
  return collaterals.map((collateral, i) => {
    const field = `collaterals.${i}`;
    if (!isCollateralType(collateral.collateralType)) {
      throw new RuleError(`${field}.collateralType`, `must be one of ${COLLATERAL_TYPE_CODES.join(', ')}`);
    }
    const type = collateral.collateralType;
    if (collateral.description !== undefined && collateral.description.length > MAX_DESCRIPTION) {
      throw new RuleError(`${field}.description`, `must be at most ${MAX_DESCRIPTION} characters`);
    }
    if (type === 'AAPP_EXCEPT' && blank(collateral.description)) {
      throw new RuleError(`${field}.description`, 'is required for AAPP_EXCEPT: it names what is excepted');
    }
    if (type !== 'GOODS_MOTOR_VEHICLES' && collateral.motorVehicles !== undefined) {
      throw new RuleError(`${field}.motorVehicles`, 'is only for collateralType GOODS_MOTOR_VEHICLES');
    }
    if (type !== 'GOODS_AIRCRAFT' && collateral.aircraft !== undefined) {
      throw new RuleError(`${field}.aircraft`, 'is only for collateralType GOODS_AIRCRAFT');
    }
    const result: Collateral = { collateralType: type };
    if (!blank(collateral.description)) result.description = collateral.description!.trim();
    if (type === 'GOODS_MOTOR_VEHICLES') {
      const vehicles = collateral.motorVehicles ?? [];
      if (vehicles.length === 0 || vehicles.length > MAX_ITEMS) {
        throw new RuleError(`${field}.motorVehicles`, `must list 1 to ${MAX_ITEMS} vehicles`);
      }
      result.motorVehicles = vehicles.map((vehicle, j) => {
        const canonical = canonicalVehicle(vehicle);
        if (!kept.has(vehicleKey(canonical)))
          checkVehicle(canonical, `${field}.motorVehicles.${j}`, currentYear);
        return canonical;
      });
    }
    if (type === 'GOODS_AIRCRAFT') {
      const aircraft = collateral.aircraft ?? [];
      if (aircraft.length === 0 || aircraft.length > MAX_ITEMS) {
        throw new RuleError(`${field}.aircraft`, `must list 1 to ${MAX_ITEMS} aircraft`);
      }
      result.aircraft = aircraft.map((a, j) => checkAircraft(a, `${field}.aircraft.${j}`));
    }
    return result;
  });
}
