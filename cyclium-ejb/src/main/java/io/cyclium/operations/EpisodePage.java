package io.cyclium.operations;

import java.util.List;

/** One page of a newest-first episode list and the cursor of the next one (null: this is the last). */
public record EpisodePage(List<EpisodeView> episodes, String nextCursor) {

    public EpisodePage {
        episodes = List.copyOf(episodes);
    }
}
