-- One round of docs/bench/episode-ids-v7-postgresql.sql: 100,000 inserts of each kind after a checkpoint.
checkpoint;
select pg_current_wal_lsn() as l0, clock_timestamp() as t0 \gset
call load('r', 4, 100000, 50);
select pg_size_pretty(pg_current_wal_lsn() - :'l0') as wal_random, clock_timestamp() - :'t0'::timestamptz as time_random;
checkpoint;
select pg_current_wal_lsn() as l0, clock_timestamp() as t0 \gset
call load('s', 7, 100000, 50);
select pg_size_pretty(pg_current_wal_lsn() - :'l0') as wal_v7, clock_timestamp() - :'t0'::timestamptz as time_v7;
