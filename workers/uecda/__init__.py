"""UECda, the UEC computer Daifugō contest (shared/rules/UECDA.md): its notation, its game
logs (read, replayed through the engine, written from the engine's series) and its TCP
protocol (a client that plays one seat with an AI level)."""
