/** Street names and types, and a few overseas business addresses, for sandbox addresses. Pure data. */

// biome-ignore format: a packed word list reads better than one word a line
export const STREET_NAMES = [
  'Queen', 'King', 'Victoria', 'George', 'Albert', 'Church', 'High', 'Station', 'Main', 'Park', 'Beach',
  'Hill', 'Grey', 'Cameron', 'Jackson', 'Kowhai', 'Rata', 'Totara', 'Rimu', 'Matai', 'Miro', 'Kauri',
  'Pohutukawa', 'Puriri', 'Manuka', 'Karaka', 'Titoki', 'Nikau', 'Tui', 'Kereru', 'Kea', 'Kiwi', 'Takahe',
  'Huia', 'Ruru', 'Pukeko', 'Tawa', 'Kahikatea', 'Harakeke', 'Raupo', 'Hobson', 'Fitzroy', 'Nelson',
  'Wellington', 'Marine', 'Seaview', 'Ocean', 'Harbour', 'Bay View', 'Lake', 'River', 'Mill', 'Bridge',
  'Forest', 'Orchard', 'Vineyard', 'Valley', 'Ridge', 'Clyde', 'Tay', 'Tweed', 'Avon', 'Heathcote',
  'Riccarton', 'Ferry', 'Wharf', 'Dock', 'Customs', 'Commerce', 'Trade', 'Rutherford', 'Sheppard', 'Hillary',
  'Seddon', 'Ballance', 'Vogel', 'Fox', 'Stout', 'Massey', 'Coates', 'Mahoe', 'Horopito', 'Koromiko',
  'Karamu', 'Ngaio', 'Akeake', 'Kanuka', 'Tarata', 'Hinau', 'Maire', 'Te Rapa', 'Te Awa', 'Waiata',
  'Rangatira', 'Aroha', 'Whare', 'Moana', 'Maunga', 'Tainui', 'Arawa', 'Oxford', 'Cambridge', 'Devon', 'Kent',
  'Durham', 'York', 'Somerset', 'Dorset', 'Essex', 'Surrey', 'Golf', 'School', 'College', 'Domain',
  'Racecourse', 'Gladstone', 'Disraeli', 'Peel', 'Russell', 'Tasman',
] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const STREET_TYPES: readonly (readonly [string, number])[] = [
  ['Road', 30],
  ['Street', 30],
  ['Avenue', 8],
  ['Drive', 8],
  ['Place', 6],
  ['Crescent', 6],
  ['Terrace', 3],
  ['Lane', 3],
  ['Way', 3],
  ['Grove', 2],
  ['Close', 2],
  ['Court', 1],
  ['Parade', 1],
  ['Rise', 1],
];

export interface OverseasPlace {
  readonly city: string;
  readonly state: string | null;
  readonly postCode: string | null;
  readonly streets: readonly string[];
}

// biome-ignore format: a packed word list reads better than one word a line
export const OVERSEAS: Readonly<Record<string, readonly OverseasPlace[]>> = {
  AU: [
    {
      city: 'Sydney',
      state: 'NSW',
      postCode: '2000',
      streets: ['George Street', 'Pitt Street', 'Kent Street'],
    },
    {
      city: 'Melbourne',
      state: 'VIC',
      postCode: '3000',
      streets: ['Collins Street', 'Bourke Street', 'William Street'],
    },
    {
      city: 'Brisbane',
      state: 'QLD',
      postCode: '4000',
      streets: ['Queen Street', 'Adelaide Street', 'Eagle Street'],
    },
    { city: 'Perth', state: 'WA', postCode: '6000', streets: ['St Georges Terrace', 'Hay Street'] },
    { city: 'Adelaide', state: 'SA', postCode: '5000', streets: ['King William Street', 'Grenfell Street'] },
  ],
  US: [
    {
      city: 'New York',
      state: 'NY',
      postCode: '10001',
      streets: ['Broadway', '7th Avenue', 'West 34th Street'],
    },
    { city: 'San Francisco', state: 'CA', postCode: '94105', streets: ['Market Street', 'Mission Street'] },
    {
      city: 'Wilmington',
      state: 'DE',
      postCode: '19801',
      streets: ['North Orange Street', 'Delaware Avenue'],
    },
  ],
  GB: [
    {
      city: 'London',
      state: null,
      postCode: 'EC2V 7HH',
      streets: ['Gresham Street', 'Cheapside', 'Wood Street'],
    },
  ],
  SG: [
    { city: 'Singapore', state: null, postCode: '018989', streets: ['Marina Boulevard', 'Raffles Place'] },
  ],
  CN: [
    { city: 'Shanghai', state: null, postCode: '200120', streets: ['Century Avenue', 'Lujiazui Ring Road'] },
  ],
  HK: [
    {
      city: 'Hong Kong',
      state: null,
      postCode: null,
      streets: ["Queen's Road Central", 'Des Voeux Road Central'],
    },
  ],
  JP: [{ city: 'Tokyo', state: null, postCode: '100-0005', streets: ['Marunouchi', 'Otemachi'] }],
  CA: [
    {
      city: 'Vancouver',
      state: 'BC',
      postCode: 'V6C 1T2',
      streets: ['Burrard Street', 'West Georgia Street'],
    },
  ],
  DE: [{ city: 'Berlin', state: null, postCode: '10117', streets: ['Friedrichstrasse', 'Unter den Linden'] }],
  IE: [{ city: 'Dublin', state: null, postCode: 'D02 X285', streets: ['Grafton Street', 'Baggot Street'] }],
};
