# cudnn.shadowed (warning)
Remove the unwanted directory from PATH
cudnnup env --shell pwsh | Out-String | Invoke-Expression   # or, for this terminal only, put the selected copy first
