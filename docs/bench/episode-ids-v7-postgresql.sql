-- Random (version 4) against time-ordered (version 7) text ids as a B-tree key, on PostgreSQL:
-- what EpisodeIds changes. Two tables shaped like cyclium_episodes' key and a list index
-- ((started_at, id)) plus one more index led by id, 1.5 million rows each (their indexes together
-- larger than shared_buffers = 128 MB, as a production table's are), then 100,000 more rows in
-- transactions of 50 (a group-commit batch), after a checkpoint, measuring WAL and time.
-- Run: psql -h 127.0.0.1 -U postgres test -f docs/bench/episode-ids-v7-postgresql.sql
-- The figures of one run are in docs/bench/episode-ids-v7-postgresql.txt.
\set ON_ERROR_STOP 1
drop schema if exists idbench cascade;
create schema idbench;
set search_path = idbench;
-- a version 7 id in text: 48 bits of Unix milliseconds, then random hex (version 7, variant 8)
create function v7() returns text language sql as $$
  select substr(h,1,8)||'-'||substr(h,9,4)||'-7'||substr(h,14,3)||'-8'||substr(h,18,3)||'-'||substr(h,21,12)
  from (select lpad(to_hex((extract(epoch from clock_timestamp())*1000)::bigint),12,'0') || md5(random()::text) as h) s $$;
create table r (id varchar(36) primary key, started_at timestamp not null, pad text);
create index on r (started_at, id);
create index on r (id, started_at);
create table s (like r including all);
insert into r select gen_random_uuid()::text, now() - (n||' ms')::interval, repeat('x',200) from generate_series(1,1500000) n;
insert into s select v7(), now() - (n||' ms')::interval, repeat('x',200) from generate_series(1,1500000) n;
vacuum analyze r;
vacuum analyze s;
select pg_size_pretty(pg_relation_size('r_pkey')) as random_pk, pg_size_pretty(pg_relation_size('s_pkey')) as v7_pk;
create procedure load(t text, ver int, n int, batch int) language plpgsql as $$
declare i int := 0;
begin
  while i < n loop
    if ver = 7 then
      execute format('insert into %I select v7(), clock_timestamp(), repeat(''x'',200) from generate_series(1,%s)', t, batch);
    else
      execute format('insert into %I select gen_random_uuid()::text, clock_timestamp(), repeat(''x'',200) from generate_series(1,%s)', t, batch);
    end if;
    commit;
    i := i + batch;
  end loop;
end $$;
\ir episode-ids-v7-postgresql-round.sql
\ir episode-ids-v7-postgresql-round.sql
drop schema idbench cascade;
