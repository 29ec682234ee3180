-- Message groups: a message of a group is claimable only while no older message of its group is in the
-- table, which the claim checks with this index (group_key, then id below the candidate's).
-- utf8mb4_nopad_bin, not the tables' utf8mb4_bin: a PAD SPACE collation compares 'G' and 'G ' as equal,
-- which would merge two groups that differ only in trailing spaces.
ALTER TABLE `${prefix}message` ADD COLUMN group_key VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL;
CREATE INDEX `${prefix}message_group` ON `${prefix}message` (queue, group_key, id);
ALTER TABLE `${prefix}dead_letter` ADD COLUMN group_key VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL;
