-- Message groups: a message of a group is claimable only while no older message of its group is in the
-- table, which the claim checks with this index (group_key, then id below the candidate's).
ALTER TABLE "${prefix}message" ADD COLUMN group_key VARCHAR(128);
CREATE INDEX "${prefix}message_group" ON "${prefix}message" (queue, group_key, id);
ALTER TABLE "${prefix}dead_letter" ADD COLUMN group_key VARCHAR(128);
