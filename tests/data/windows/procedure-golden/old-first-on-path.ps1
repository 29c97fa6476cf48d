# cudnn.shadowed (warning)
Remove the unwanted copy's folder from PATH, or move the wanted one's folder before it
cudnnup which cudnn64_9.dll -v   # then, in a new terminal: which copy a program gets, and why
