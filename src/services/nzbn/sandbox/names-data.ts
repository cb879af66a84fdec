/** Word lists for sandbox business names. Pure data. */
import type { DivisionLetter } from '../domain/bic.ts';

/** Māori words common in New Zealand business names: native trees and birds, land, water, sky. */
// biome-ignore format: a packed word list reads better than one word a line
export const MAORI_WORDS = [
  'Kowhai', 'Totara', 'Rimu', 'Kauri', 'Tui', 'Kereru', 'Pohutukawa', 'Manuka', 'Kahikatea', 'Rata', 'Nikau',
  'Harakeke', 'Aroha', 'Awa', 'Moana', 'Maunga', 'Whenua', 'Rangi', 'Kaitiaki', 'Mauri', 'Kotuku', 'Ruru',
  'Kea', 'Takahe', 'Pounamu', 'Tane', 'Whetu', 'Matariki', 'Korimako', 'Piwakawaka', 'Tawa', 'Miro', 'Matai',
  'Kahu', 'Puna', 'Raupo', 'Toetoe', 'Kaha', 'Tika', 'Ora', 'Manawa', 'Kotare', 'Titoki', 'Karaka', 'Puriri',
  'Horoeka', 'Tawhiri', 'Waimarie', 'Te Ara', 'Hihi',
] as const;

/** Landform and nature words that follow a Māori or English word: "Kowhai Ridge", "Silver Creek". */
// biome-ignore format: a packed word list reads better than one word a line
export const LANDFORMS = [
  'Ridge', 'Valley', 'Bay', 'Creek', 'Hills', 'Peak', 'Harbour', 'Coast', 'Park', 'Grove', 'Downs', 'Estate',
  'Station', 'River', 'Lake', 'Point', 'Heights', 'Springs', 'Gully', 'Plains', 'Terrace', 'Crossing',
  'Falls', 'Rise', 'Cove', 'Flat', 'Glen', 'Bush', 'Run', 'Landing',
] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const ADJECTIVES = [
  'Silver', 'Golden', 'Blue', 'Southern', 'Northern', 'Pacific', 'Alpine', 'Coastal', 'Summit', 'Evergreen',
  'Red', 'Black', 'Green', 'Clearwater', 'Highland', 'Western', 'Eastern', 'Central', 'Bright', 'True',
  'Ironbark', 'Stonewall', 'Firstlight', 'Long White', 'Smart', 'Premier', 'Total', 'Elite', 'Kiwi', 'Tasman',
] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const NOUNS = [
  'Fern', 'Stone', 'Oak', 'Cedar', 'Horizon', 'Anchor', 'Compass', 'Harvest', 'Beacon', 'Crest', 'Arrow',
  'Bridge', 'Tide', 'Cloud', 'Pine', 'Willow', 'Falcon', 'Hawk', 'Orca', 'Tern', 'Koru', 'Frontier',
  'Keystone', 'Pinnacle', 'Meridian', 'Canopy', 'Current', 'Ember', 'Forge', 'Shore',
] as const;

/** Generic words of holding and trading companies, in any division. */
// biome-ignore format: a packed word list reads better than one word a line
export const GENERIC_WORDS = [
  'Holdings', 'Investments', 'Group', 'Enterprises', 'Ventures', 'Partners', 'Solutions', 'Services',
  'Management', 'International', 'NZ', 'Trading', 'Capital', 'Developments', 'Property',
] as const;

/** Industry words that fit a business's main activity, by ANZSIC division. */
// biome-ignore format: a packed word list reads better than one word a line
export const INDUSTRY_WORDS: Readonly<Record<DivisionLetter, readonly string[]>> = {
  A: [
    'Farms', 'Farming', 'Orchards', 'Vineyards', 'Horticulture', 'Dairies', 'Growers', 'Forestry', 'Apiaries',
    'Fishing',
  ],
  B: ['Quarries', 'Mining', 'Resources', 'Aggregates', 'Minerals'],
  C: ['Manufacturing', 'Engineering', 'Foods', 'Brewing', 'Joinery', 'Fabrication', 'Products', 'Industries'],
  D: ['Energy', 'Power', 'Water', 'Waste', 'Recycling'],
  E: [
    'Builders', 'Construction', 'Building', 'Plumbing', 'Electrical', 'Roofing', 'Painters', 'Concrete',
    'Drainage', 'Contracting', 'Homes', 'Carpentry',
  ],
  F: ['Trading', 'Imports', 'Distributors', 'Supplies', 'Wholesale', 'Traders', 'Exports'],
  G: ['Retail', 'Store', 'Traders', 'Boutique', 'Outlet', 'Market', 'Emporium'],
  H: ['Cafe', 'Kitchen', 'Eatery', 'Hospitality', 'Catering', 'Lodge', 'Motel', 'Bistro', 'Takeaways'],
  I: ['Transport', 'Logistics', 'Freight', 'Couriers', 'Haulage', 'Carriers', 'Cartage'],
  J: ['Media', 'Digital', 'Communications', 'Software', 'Publishing', 'Studios'],
  K: ['Finance', 'Capital', 'Investments', 'Lending', 'Insurance Brokers'],
  L: ['Holdings', 'Properties', 'Property', 'Investments', 'Rentals', 'Realty', 'Developments', 'Estates'],
  M: [
    'Consulting', 'Consultants', 'Design', 'Accounting', 'Legal', 'Architects', 'Engineers', 'Surveyors',
    'Advisory', 'Technologies',
  ],
  N: ['Services', 'Cleaning', 'Recruitment', 'Solutions', 'Staffing', 'Maintenance', 'Gardens'],
  O: ['Security', 'Safety'],
  P: ['Education', 'Learning', 'Tutoring', 'Training', 'Academy'],
  Q: ['Health', 'Medical', 'Physiotherapy', 'Dental', 'Care', 'Wellness', 'Clinic'],
  R: ['Fitness', 'Recreation', 'Entertainment', 'Events', 'Adventures', 'Sports'],
  S: ['Automotive', 'Motors', 'Hair', 'Beauty', 'Repairs', 'Auto Electrical', 'Services'],
};

/** Foreign legal forms of overseas (non-ASIC) companies. */
// biome-ignore format: a packed word list reads better than one word a line
export const OVERSEAS_SUFFIXES = [
  'Inc.', 'LLC', 'Corporation', 'Pte. Ltd.', 'GmbH', 'Ltd', 'B.V.', 'Co., Ltd.', 'S.A.',
] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const CLUB_KINDS = [
  'Rugby Football Club', 'Cricket Club', 'Tennis Club', 'Netball Club', 'Golf Club', 'Bowling Club',
  'Surf Life Saving Club', 'Football Club', 'Rowing Club', 'Squash Club', 'Croquet Club', 'Yacht Club',
  'Residents Association', 'Historical Society', 'Playcentre', 'Arts Society', 'Choral Society', 'Lions Club',
  'Rotary Club', 'Garden Club', 'Kapa Haka Roopu', 'Pony Club', 'Hockey Club', 'Swimming Club',
] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const TRUST_KINDS = [
  'Community Trust', 'Charitable Trust', 'Education Trust', 'Marae Trust', 'Trust Board', 'Foundation Trust',
] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const GOVERNMENT_TOPICS = [
  'Coastal Resources', 'Rural Connectivity', 'Freshwater', 'Housing Supply', 'Biosecurity Response',
  'Road Safety', 'Heritage', 'Screen Production', 'Skills', 'Visitor Industry', 'Sport and Recreation',
  'Fisheries Management', 'Forestry Development', 'Regional Growth', 'Water Services', 'Seismic Risk',
] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const GOVERNMENT_KINDS = ['Authority', 'Commission', 'Agency', 'Office', 'Council', 'Board'] as const;

// biome-ignore format: a packed word list reads better than one word a line
export const SCHOOL_KINDS = [
  'School', 'Primary School', 'School', 'Intermediate', 'College', 'High School', 'Kindergarten',
  'Area School',
] as const;
