import { describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import { fullName, generatePerson, generateRelative } from '../../../src/services/nzbn/sandbox/people.ts';
import { NAMES } from '../../../src/services/nzbn/sandbox/people-data.ts';

const sample = (count: number, seed = 'people') => {
  const random = seeded(seed);
  return Array.from({ length: count }, () => generatePerson(random));
};

describe('generatePerson', () => {
  it('is deterministic for a seed', () => {
    expect(sample(50)).toEqual(sample(50));
    expect(sample(50, 'other')).not.toEqual(sample(50));
  });

  it('fills given and family names and uses null, not empty, for absent middle names and titles', () => {
    for (const person of sample(2_000)) {
      expect(person.firstName.length).toBeGreaterThan(0);
      expect(person.lastName.length).toBeGreaterThan(0);
      expect(person.middleNames === null || person.middleNames.length > 0).toBe(true);
      expect((person.middleNames ?? '').split(' ')).not.toContain(person.firstName);
      expect(person.title === null || ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr'].includes(person.title)).toBe(true);
    }
  });

  it('mixes naming traditions roughly as New Zealand business owners do', () => {
    const people = sample(20_000);
    const share = (origin: string) =>
      people.filter((person) => person.origin === origin).length / people.length;
    expect(share('european')).toBeGreaterThan(0.55);
    expect(share('european')).toBeLessThan(0.69);
    expect(share('maori')).toBeGreaterThan(0.09);
    expect(share('pacific')).toBeGreaterThan(0.04);
    expect(share('chinese') + share('indian') + share('otherAsian')).toBeGreaterThan(0.16);
    const middles = people.filter((person) => person.middleNames !== null).length / people.length;
    expect(middles).toBeGreaterThan(0.5);
    expect(middles).toBeLessThan(0.75);
  });

  it('uses Maori given names for part of Maori-named people and English ones for the rest', () => {
    const random = seeded('maori');
    const people = Array.from({ length: 2_000 }, () => generatePerson(random, 'maori'));
    const maoriGiven = people.filter((person) =>
      [...NAMES.maori.male, ...NAMES.maori.female].includes(person.firstName),
    );
    expect(maoriGiven.length / people.length).toBeGreaterThan(0.4);
    expect(maoriGiven.length / people.length).toBeLessThan(0.6);
  });

  it('gives Sikh family names by gender', () => {
    const random = seeded('sikh');
    for (let i = 0; i < 2_000; i++) {
      const person = generatePerson(random, 'indian');
      if (person.lastName === 'Singh') expect(person.gender).toBe('male');
      if (person.lastName === 'Kaur') expect(person.gender).toBe('female');
    }
  });
});

describe('relatives and full names', () => {
  it('shares the family name, recomputing Singh and Kaur for gender', () => {
    const random = seeded('relatives');
    for (let i = 0; i < 500; i++) {
      const person = generatePerson(random);
      const relative = generateRelative(random, person);
      if (person.lastName === 'Singh' || person.lastName === 'Kaur') {
        expect(relative.lastName).toBe(relative.gender === 'male' ? 'Singh' : 'Kaur');
      } else {
        expect(relative.lastName).toBe(person.lastName);
      }
      expect(relative.origin).toBe(person.origin);
    }
  });

  it.each([
    [{ firstName: 'Aroha', middleNames: 'Mere', lastName: 'Ngata' }, 'Aroha Mere Ngata'],
    [{ firstName: 'Wei', middleNames: null, lastName: 'Chen' }, 'Wei Chen'],
  ])('writes %j as %s', (person, expected) => {
    expect(fullName(person)).toBe(expected);
  });
});
