# install.files_changed (error)
Windows Security > Virus & threat protection > Protection history: restore the quarantined files
Add an exclusion for <WORK>\procedure\CUDA\v12.4 (Virus & threat protection settings > Exclusions) so it does not happen again
or put the files back:
cudnnup uninstall --into <WORK>\procedure\CUDA\v12.4 --force
cudnnup install 9.1.0 --cuda 12 --into <WORK>\procedure\CUDA\v12.4
