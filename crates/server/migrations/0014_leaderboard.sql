-- The leaderboard (`store/leaderboard.rs`) lists one variant's ratings highest first: without
-- this index every request would sort the whole `rating` table.
create index rating_variant_rating_idx on rating (variant, rating desc);
