package io.cyclium.keys;

/**
 * The work-claim key of an episode: its dedupe key (so two nodes that raced to insert the same
 * trigger also contend for one lease), else {@code episode:<id>}. The runner, the recovery sweep
 * and the console must agree on it.
 */
public final class EpisodeClaimKey {

    private EpisodeClaimKey() {
    }

    public static String of(String dedupeKey, String episodeId) {
        return dedupeKey != null ? dedupeKey : "episode:" + episodeId;
    }
}
