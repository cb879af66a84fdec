-- A trade mark written without a type takes it from what it has: with an image, Image one in four (by
-- its number) else Combined; without one, as before (1 in 40 each Colour, Shape, Sound, the rest Word).
-- Before this, every mark with an image was Combined, and every sandbox mark had one.
CREATE OR REPLACE FUNCTION iponz_mark_defaults() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind = 'trademark' THEN
    NEW.mark_nature := coalesce(NEW.mark_nature, CASE NEW.case_number % 50
      WHEN 7 THEN 'Collective Mark' WHEN 13 THEN 'Certification Mark' ELSE 'Trade Mark' END);
    NEW.mark_type := coalesce(NEW.mark_type, CASE
      WHEN NEW.mark_image_name IS NOT NULL AND NEW.case_number % 4 = 1 THEN 'Image'
      WHEN NEW.mark_image_name IS NOT NULL THEN 'Combined'
      WHEN NEW.case_number % 40 = 3 THEN 'Colour'
      WHEN NEW.case_number % 40 = 11 THEN 'Shape'
      WHEN NEW.case_number % 40 = 17 THEN 'Sound'
      ELSE 'Word' END);
  END IF;
  RETURN NEW;
END $$;
