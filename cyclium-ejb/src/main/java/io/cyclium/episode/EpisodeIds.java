package io.cyclium.episode;

import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Episode ids that sort by creation time: UUID version 7 (RFC 9562), the first 48 bits the
 * milliseconds of the node's clock, the other 74 free bits random.
 *
 * <p>Why: an episode id is the primary key of {@code cyclium_episodes}, the first column of the
 * journal's and the checkpoints' keys, and the tie-breaker of every list index. A random (version
 * 4) id sends each insert to a random leaf page of those B-trees, so the pages written between two
 * checkpoints are spread over the whole index and each first write of a page after a checkpoint
 * costs PostgreSQL a full-page image in its WAL. Ids in time order go to the right-hand edge: the
 * same few pages, hot in cache. Still the 36-character text form of a UUID, so the schema, the API
 * and ids made before this stay as they are.
 *
 * <p>Uniqueness rests on the 74 random bits (two ids of one millisecond collide with odds of
 * about 2⁻⁷⁴ per pair), and a clock that steps back only costs locality, never uniqueness. The
 * random bits come from {@link ThreadLocalRandom}, not {@link java.security.SecureRandom}: an id is
 * a key, not a secret (every page and call that takes one is behind the console's login), and a
 * shared SecureRandom is a lock that every trigger thread would queue on.
 */
public final class EpisodeIds {

    private final Clock clock;

    public EpisodeIds(Clock clock) {
        this.clock = clock;
    }

    public String next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long millis = clock.millis() & 0xFFFF_FFFF_FFFFL;
        long high = (millis << 16) | 0x7000L | (random.nextInt() & 0x0FFFL);
        long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(high, low).toString();
    }
}
