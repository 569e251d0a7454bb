# A CSV row with fewer fields than the first.
import data
x = data.load_csv("ragged.csv")
print(x)
