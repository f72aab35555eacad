package io.cyclium.episode;

/**
 * Fired (as a CDI event) after a running episode's journal row is committed — a step, a checkpoint,
 * a resume marker, a block for approval or wait — on the node that wrote it. Open console pages
 * listen to it to show the new row at once; the terminal row fires {@link EpisodeFinished} instead.
 */
public record EpisodeProgressed(String episodeId, int stepNo, String kind, String node) {
}
