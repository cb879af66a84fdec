-- Batched imports' checkpoints (platform/transfer/, `rsg import … --batch N`): where the last committed
-- batch of an import of one register from one set of files ended, written in that batch's own
-- transaction, so `--resume` continues exactly after what is committed. Removed when the import ends.
--   fingerprint: SHA-256 over the files' resolved paths, sizes and modification times, in order.
CREATE TABLE transfer_checkpoints (
  register text NOT NULL,
  fingerprint text NOT NULL,
  file_index integer NOT NULL,
  line bigint NOT NULL,
  records bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (register, fingerprint)
);
