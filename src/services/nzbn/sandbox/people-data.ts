/**
 * Given names and surnames for sandbox people, grouped by the naming traditions common among New
 * Zealand business owners. Lists are ordinary, frequent names (no real person is intended). Pure data.
 */

export type NameOrigin = 'european' | 'maori' | 'pacific' | 'chinese' | 'indian' | 'otherAsian';

/** Share of directors, partners and trustees whose names follow each tradition (a rough national mix). */
// biome-ignore format: a packed word list reads better than one word a line
export const ORIGIN_WEIGHTS: readonly (readonly [NameOrigin, number])[] = [
  ['european', 62],
  ['maori', 12],
  ['pacific', 6],
  ['chinese', 9],
  ['indian', 7],
  ['otherAsian', 4],
];

export interface NameSet {
  readonly male: readonly string[];
  readonly female: readonly string[];
  readonly surnames: readonly string[];
}

// biome-ignore format: a packed word list reads better than one word a line
export const NAMES: Readonly<Record<NameOrigin, NameSet>> = {
  european: {
    male: [
      'James', 'John', 'David', 'Michael', 'Peter', 'Mark', 'Andrew', 'Richard', 'Stephen', 'Paul', 'Robert',
      'Christopher', 'Daniel', 'Matthew', 'Craig', 'Brent', 'Grant', 'Shane', 'Wayne', 'Graeme', 'Ian',
      'Murray', 'Bruce', 'Kevin', 'Neil', 'Simon', 'Timothy', 'Jonathan', 'Benjamin', 'Samuel', 'Thomas',
      'William', 'Jack', 'Oliver', 'Hamish', 'Angus', 'Callum', 'Liam', 'Ryan', 'Nathan', 'Scott', 'Jason',
      'Anthony', 'Philip', 'Gregory', 'Alan', 'Colin', 'Trevor', 'Barry', 'Hugh',
    ],
    female: [
      'Sarah', 'Jennifer', 'Karen', 'Michelle', 'Emma', 'Olivia', 'Charlotte', 'Sophie', 'Rachel', 'Rebecca',
      'Nicola', 'Claire', 'Kate', 'Anna', 'Jane', 'Susan', 'Margaret', 'Helen', 'Christine', 'Julie', 'Lisa',
      'Amanda', 'Melissa', 'Kirsty', 'Megan', 'Hannah', 'Georgia', 'Lucy', 'Grace', 'Isabella', 'Amelia',
      'Ruby', 'Jessica', 'Elizabeth', 'Catherine', 'Alison', 'Fiona', 'Joanne', 'Louise', 'Robyn', 'Denise',
      'Debbie', 'Wendy', 'Sharon', 'Vicki', 'Andrea', 'Natalie', 'Stephanie', 'Philippa', 'Anne',
    ],
    surnames: [
      'Smith', 'Williams', 'Brown', 'Wilson', 'Taylor', 'Jones', 'Thompson', 'Anderson', 'Walker', 'Harris',
      'Robinson', 'Campbell', 'Clark', 'Mitchell', 'Scott', 'Stewart', 'King', 'Young', 'White', 'Martin',
      'Hall', 'Wright', 'Ryan', 'Kelly', 'Murphy', "O'Brien", 'McDonald', 'Cameron', 'Fraser', 'Reid',
      'Morrison', 'Hughes', 'Roberts', 'Evans', 'Davies', 'Jackson', 'Turner', 'Baker', 'Edwards', 'Green',
      'Wood', 'Collins', 'Bell', 'Murray', 'Graham', 'Kennedy', 'Johnston', 'Sutherland', 'Ross', 'Hamilton',
      'Paterson', 'Gray', 'Henderson', 'McKenzie', 'Simpson', 'Shaw', 'Hunter', 'Marshall', 'Watson',
      'Morgan', 'Cooper', 'Barnes', 'Fisher', 'Gibson', 'Russell', 'Lawson', 'Burns', 'Wallace', 'McLean',
      'Duncan', 'van der Berg', 'de Jong', 'Visser', 'Bakker', 'Jansen', 'Muller', 'Schmidt', 'Rossi',
      'Petersen', 'Larsen',
    ],
  },
  maori: {
    male: [
      'Wiremu', 'Hemi', 'Tama', 'Rawiri', 'Tane', 'Manaia', 'Nikau', 'Kahu', 'Tamati', 'Anaru', 'Rangi',
      'Hone', 'Mikaere', 'Paora', 'Pita', 'Ropata', 'Tipene', 'Rewi', 'Matiu', 'Nikora', 'Ihaia', 'Hohepa',
      'Te Ariki', 'Tawhiri', 'Kauri',
    ],
    female: [
      'Aroha', 'Ngaire', 'Mere', 'Hine', 'Hana', 'Moana', 'Kiri', 'Huia', 'Awhina', 'Ariana', 'Keri', 'Mihi',
      'Anahera', 'Marama', 'Ngaio', 'Rangimarie', 'Tui', 'Wairua', 'Kahurangi', 'Manaaki', 'Atawhai', 'Maia',
      'Te Aniwa', 'Hinemoa', 'Tia',
    ],
    surnames: [
      'Ngata', 'Parata', 'Waaka', 'Tipene', 'Horomona', 'Te Whata', 'Rangihuna', 'Pomare', 'Tamihana',
      'Karaka', 'Paki', 'Rewi', 'Hetaraka', 'Nikora', 'Tuhiwai', 'Herewini', 'Te Rangi', 'Mahuika', 'Winiata',
      'Kingi', 'Whaanga', 'Ruatapu', 'Poutama', 'Tautahi', 'Te Kani', 'Huata', 'Maxwell', 'Walker', 'Tomoana',
      'Hohaia',
    ],
  },
  pacific: {
    male: [
      'Sione', 'Tevita', 'Ioane', 'Viliami', 'Semisi', 'Manu', 'Fetu', 'Iosefa', 'Pele', 'Sefo', 'Tomasi',
      'Filipo', 'Aleki', 'Mosese', 'Penitoa', 'Ratu', 'Josaia', 'Tavita', 'Lui', 'Kalolo',
    ],
    female: [
      'Losa', 'Mele', 'Lagi', 'Sina', 'Salote', 'Malia', 'Litia', 'Talia', 'Ana', 'Fiso', 'Seini', 'Lupe',
      'Vaiola', 'Alisi', 'Sela', 'Tupe', 'Mereani', 'Luisa', 'Teuila', 'Tiare',
    ],
    surnames: [
      'Faleolo', 'Tuilagi', 'Leota', 'Fonoti', 'Taufa', 'Tupou', 'Vaifale', 'Sopoaga', 'Pouono', 'Tuiasosopo',
      'Fifita', 'Lolohea', 'Havili', 'Mataele', 'Aumua', 'Siaosi', 'Vaai', 'Falaniko', 'Tamapua', 'Sefo',
      'Lealaiauloto', 'Ioane', 'Naufahu', 'Tonga', 'Ratuva',
    ],
  },
  chinese: {
    male: [
      'Wei', 'Jun', 'Ming', 'Hao', 'Lei', 'Jian', 'Yong', 'Qiang', 'Tao', 'Bo', 'Chen', 'Kai', 'Zhi', 'Feng',
    ],
    female: [
      'Jing', 'Li', 'Yan', 'Hui', 'Xin', 'Mei', 'Ying', 'Fang', 'Lan', 'Xiu', 'Ling', 'Yu', 'Qing', 'Na',
    ],
    surnames: [
      'Wang', 'Li', 'Zhang', 'Liu', 'Chen', 'Yang', 'Huang', 'Zhao', 'Wu', 'Zhou', 'Xu', 'Sun', 'Ma', 'Zhu',
      'Hu', 'Lin', 'Guo', 'He', 'Gao', 'Luo', 'Zheng', 'Wong', 'Chan', 'Ng', 'Lee', 'Leung', 'Chong', 'Young',
      'Chin', 'Low',
    ],
  },
  indian: {
    male: [
      'Rahul', 'Amit', 'Raj', 'Vikram', 'Sanjay', 'Arjun', 'Rohit', 'Suresh', 'Harpreet', 'Gurpreet',
      'Jaswinder', 'Manpreet', 'Ravi', 'Anil', 'Deepak', 'Pradeep', 'Karan', 'Nikhil', 'Sandeep', 'Ashok',
    ],
    female: [
      'Priya', 'Sunita', 'Anjali', 'Pooja', 'Neha', 'Kavita', 'Deepa', 'Shalini', 'Rupinder', 'Simran',
      'Jaspreet', 'Navneet', 'Asha', 'Meena', 'Divya', 'Sonia', 'Ritu', 'Anita', 'Nisha', 'Lakshmi',
    ],
    surnames: [
      'Patel', 'Sharma', 'Kumar', 'Gupta', 'Reddy', 'Prasad', 'Naidu', 'Shah', 'Mehta', 'Chand', 'Lal', 'Ram',
      'Narayan', 'Pillai', 'Nair', 'Desai', 'Joshi', 'Verma', 'Chopra', 'Bhatia',
    ],
  },
  otherAsian: {
    male: [
      'Min-jun', 'Ji-hoon', 'Hyun', 'Minh', 'Tuan', 'Duc', 'Jose', 'Mark Anthony', 'Hiroshi', 'Kenji',
      'Somchai',
    ],
    female: [
      'Ji-woo', 'Seo-yeon', 'Thi', 'Anh', 'Linh', 'Maria', 'Rosalie', 'Yuki', 'Aiko', 'Mai', 'Siriporn',
    ],
    surnames: [
      'Kim', 'Park', 'Choi', 'Jung', 'Kang', 'Nguyen', 'Tran', 'Le', 'Pham', 'Reyes', 'Santos', 'Cruz',
      'Garcia', 'Dela Cruz', 'Tanaka', 'Sato', 'Suzuki', 'Lim', 'Tan', 'Wongsakul',
    ],
  },
};

/** Sikh family names, used by gender for part of the Indian-origin names. */
// biome-ignore format: a packed word list reads better than one word a line
export const SIKH_SURNAMES = { male: 'Singh', female: 'Kaur' } as const;

// biome-ignore format: a packed word list reads better than one word a line
export const TITLES = ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr'] as const;
